<!-- placeholder: the browser client -->

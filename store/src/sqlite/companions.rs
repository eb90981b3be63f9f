//! SQLite's files beside a game file (`-journal`, `-wal`, `-shm`): their names, and what
//! they say of the file.

use super::folder::change_folder;
use std::path::{Path, PathBuf};

/// Make SQLite's write-ahead companions of the game file at `path` (`suffixes` of `-wal`, the
/// log, and `-shm`, its index), empty and readable by their owner only (the mode SQLite gives
/// them, the file's), before SQLite opens the file in WAL mode, unless they are there already.
/// Why: SQLite makes a missing index while holding the one lock of its whole unix layer
/// (`unixOpenSharedMemory`, under `unixEnterMutex`), and looks a file's name up under that lock
/// before opening it (`findReusableFd`: a name not made yet is looked up in the folder, under
/// the folder's lock); every write-ahead commit of every game open in the process takes that
/// lock too (`unixShmBarrier`, twice a commit). Making a file waits for the folder's lock and
/// allocates an inode (on ext4 without a journal, a scan past every inode freed in the last
/// minute): in a burst of creations every game's moves would wait for the new files. SQLite
/// treats companions it finds as its own: an empty log holds no write, and the first
/// connection to attach resets the index (its "dead man's switch" lock), so empty ones are
/// what it would have made.
///
/// Only ever new files (`O_EXCL`): opening and closing an index this process already holds
/// open would drop SQLite's locks on it (POSIX locks belong to the process, and any close
/// releases them). A failure is left to SQLite, which makes the file itself or says why not.
pub(super) fn make_companions(path: &Path, suffixes: &[&str]) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        change_folder(path, || {
            for suffix in suffixes {
                let _ = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(beside(path, suffix));
            }
        })
    }
    #[cfg(not(unix))]
    let _ = (path, suffixes);
}

/// Whether the file at `path` is marked a write-ahead file (SQLite's header bytes 18 and 19
/// are 2; a rollback file's are 1).
pub(super) fn marked_write_ahead(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 20];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header)).is_ok() && header[18..20] == [2, 2]
}

/// `path` with `suffix` added to its name: SQLite's companions of a file (`-journal`, `-wal`,
/// `-shm`).
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Whether a rollback journal may hold a write to finish or undo: it exists and its header is
/// not zeroed. A journal kept between writes (`journal_mode = PERSIST`) has its header zeroed
/// at each commit, and an empty one holds nothing; either is SQLite's "not hot" too.
pub(super) fn hot_journal(journal: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(journal) else { return journal.exists() };
    let mut start = Vec::with_capacity(8);
    match file.take(8).read_to_end(&mut start) {
        Ok(_) => start.iter().any(|b| *b != 0),
        // Unreadable: it may be hot.
        Err(_) => true,
    }
}

/// Whether the rollback journal beside `path` is known to hold an interrupted write: it can be
/// read and its header is not zeroed. (One this user cannot read is left to SQLite to judge:
/// another user's journal of a committed write, say.)
pub(super) fn interrupted_write(path: &Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; 8];
    std::fs::File::open(beside(path, "-journal")).and_then(|mut f| f.read_exact(&mut start)).is_ok() && start.iter().any(|b| *b != 0)
}

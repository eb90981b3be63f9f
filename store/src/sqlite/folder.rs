//! The data folder's names: new private files, changes of names one at a time, and shared
//! syncs of the folder.

use std::path::{Path, PathBuf};

/// Sync the folder holding `path`, so that a name just linked, renamed or made in it survives
/// a crash (a file's own sync does not cover its name). Nothing to do where folders cannot be
/// opened (not Unix).
///
/// Callers at once share syncs (group commit of the folder's names): a caller returns after a
/// sync of the folder that began after it called, so after its own change; whoever calls while
/// none runs leads the next one for everyone waiting. A sync that began later covers every
/// change made before it began, so a burst of creations in one folder shares a few syncs
/// instead of waiting for two syncs each.
pub fn sync_folder(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        FolderSync::of(dir).sync(|| match std::fs::File::open(dir)?.sync_all() {
            // A file system that does not sync folders (as SQLite, which ignores this too).
            Err(e) if matches!(e.kind(), std::io::ErrorKind::InvalidInput | std::io::ErrorKind::Unsupported) => Ok(()),
            other => other,
        })
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// The syncs of one folder ([`sync_folder`]): how many began and ended, and how the last one
/// went.
#[derive(Default)]
pub(super) struct FolderSync {
    state: std::sync::Mutex<FolderSyncs>,
    ended: std::sync::Condvar,
    /// Held while this process changes the folder's names ([`change_folder`]).
    names: std::sync::Mutex<()>,
}

#[derive(Default)]
pub(super) struct FolderSyncs {
    began: u64,
    done: u64,
    running: bool,
    /// The last sync's failure (an `io::Error` is not `Clone`: its kind and text).
    last: Option<(std::io::ErrorKind, String)>,
}

impl FolderSync {
    /// The one for folder `dir` in this process (a process keeps its few folders' for its life).
    fn of(dir: &Path) -> std::sync::Arc<FolderSync> {
        static ALL: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<FolderSync>>>> =
            std::sync::LazyLock::new(Default::default);
        ALL.lock().unwrap_or_else(|p| p.into_inner()).entry(dir.to_path_buf()).or_default().clone()
    }

    /// Wait for a `sync` that begins after this call, leading it if none runs.
    fn sync(&self, sync: impl FnOnce() -> std::io::Result<()>) -> std::io::Result<()> {
        let mut sync = Some(sync);
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        // One running now may have begun before the caller's change: the next one is needed.
        let needed = st.began + 1;
        loop {
            if st.done >= needed {
                // That one or a later one (begun later still): either covers the change.
                return match &st.last {
                    None => Ok(()),
                    Some((kind, what)) => Err(std::io::Error::new(*kind, what.clone())),
                };
            }
            if st.running {
                st = self.ended.wait(st).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            st.running = true;
            st.began += 1;
            let this = st.began;
            drop(st);
            // A leader syncs once: after its own sync `done >= needed` holds.
            let result = sync.take().map_or(Ok(()), |f| f());
            st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            st.running = false;
            st.done = this;
            st.last = result.err().map(|e| (e.kind(), e.to_string()));
            self.ended.notify_all();
        }
    }
}

/// A new empty file at `path`, readable and writable by its owner only (0600, whatever the
/// umask: a saved game holds its seed, from which anyone rebuilds every hand); refused if
/// anything is there (`O_EXCL`).
pub(crate) fn private_new_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

/// `change` (making, linking, renaming or removing a name in the folder holding `path`), made
/// while no other such change of this process to that folder is under way. The file system
/// makes them one at a time anyway (the folder's lock), and its waiters spin on a core while
/// the holder runs: in a burst of creations, a core spins while another allocates an inode, and
/// the games' moves are left with none. Here a waiter sleeps.
pub fn change_folder<T>(path: &Path, change: impl FnOnce() -> T) -> T {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let folder = FolderSync::of(dir);
    let _one_at_a_time = folder.names.lock().unwrap_or_else(|p| p.into_inner());
    change()
}

/// Can a file be created next to `path` (SQLite's rollback journal)? Probed by creating and
/// removing an empty file.
pub(super) fn folder_writable(path: &Path) -> bool {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let probe = dir.join(format!(".{name}.{}.probe", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Callers of one folder's sync at once share syncs, and each returns only after a sync
    /// that began after it called (its change covered); a failure is every sharer's.
    #[test]
    fn a_folder_s_syncs_are_shared_and_each_caller_waits_for_one_begun_after_it() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let syncs = FolderSync::default();
        let (begun, ended) = (AtomicU64::new(0), AtomicU64::new(0));
        std::thread::scope(|scope| {
            for _ in 0..32 {
                scope.spawn(|| {
                    for _ in 0..5 {
                        let before = begun.load(Ordering::SeqCst);
                        syncs
                            .sync(|| {
                                let n = begun.fetch_add(1, Ordering::SeqCst) + 1;
                                std::thread::sleep(std::time::Duration::from_millis(2));
                                ended.fetch_max(n, Ordering::SeqCst);
                                Ok(())
                            })
                            .expect("synced");
                        assert!(ended.load(Ordering::SeqCst) > before, "a sync begun after the call ended before it returned");
                    }
                });
            }
        });
        let n = begun.load(Ordering::SeqCst);
        assert!((1..32 * 5).contains(&n), "{n} syncs for 160 calls");
        let failed = syncs.sync(|| Err(std::io::Error::other("the disk is gone")));
        assert_eq!(failed.map_err(|e| e.to_string()), Err("the disk is gone".to_string()));
        assert!(syncs.sync(|| Ok(())).is_ok(), "the next sync is its own");
    }
}

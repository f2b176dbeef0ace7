//! Locks that survive a panic elsewhere: a thread that panicked while
//! holding a lock leaves it poisoned, and every later user of the lock
//! would panic in turn (through the C ABI, aborting the program). gregor's
//! data behind a lock is consistent between statements, so the guard is
//! taken back from a poisoned lock instead. The one helper for it:
//! `m.locked()`, `l.read_locked()`, `l.write_locked()`.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// [`Mutex::lock`] that takes a poisoned lock back.
pub(crate) trait MutexExt<T: ?Sized> {
    /// The guard, poisoned or not.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> MutexExt<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// [`RwLock::read`] and [`RwLock::write`] that take a poisoned lock back.
pub(crate) trait RwLockExt<T: ?Sized> {
    /// The read guard, poisoned or not.
    fn read_locked(&self) -> RwLockReadGuard<'_, T>;
    /// The write guard, poisoned or not.
    fn write_locked(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> RwLockExt<T> for RwLock<T> {
    fn read_locked(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(|e| e.into_inner())
    }
    fn write_locked(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(|e| e.into_inner())
    }
}

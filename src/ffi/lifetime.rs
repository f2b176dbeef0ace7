//! Handle lifetime: what makes `gregor_<client>_free` safe while other
//! threads are inside calls on the same handle (the contract stated in the
//! header's preamble).
//!
//! Every client handle (producer, consumer, admin, ZooKeeper session and
//! balanced consumer, Kafka 0.7 client and producer) is registered, by
//! address, in a registry of its own type while it lives, and counts the
//! calls in flight on it:
//!
//! - a call enters with [`enter`]: under the registry's read lock it checks
//!   that the address is a live handle of that type and bumps the handle's
//!   in-flight count; the returned [`Entered`] guard drops the count when
//!   the call returns. An address that is not live (freed, being freed, or
//!   never a handle of that type) gets `GREGOR_ERR__DESTROY` and is never
//!   dereferenced;
//! - `_free` ([`destroy`]) takes the address out of the registry under the
//!   write lock (so no call can enter any more), marks the handle destroyed,
//!   runs its [`Handle::shutdown`] to wake the calls blocked in it (they
//!   return promptly, with `GREGOR_ERR__DESTROY`), waits for the in-flight
//!   count to reach zero, and only then drops it;
//! - a `_free` from inside a call on the same handle on the same thread (a
//!   callback run by `poll` freeing its own client) cannot wait for itself:
//!   it is refused (a no-op, as the consumer's callbacks always documented;
//!   the handle stays usable and must be freed after the call returns).
//!
//! The hot path is an uncontended read lock, a `BTreeSet` lookup, one atomic
//! increment and decrement, and a push/pop on a thread-local stack.

use crate::sync::{MutexExt, RwLockExt};
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, RwLock};

use crate::error::{local, Error};

/// Set in [`Life::state`] once `_free` has begun.
const DESTROYED: usize = 1 << (usize::BITS - 1);
/// The in-flight count's bits.
const COUNT: usize = DESTROYED - 1;

/// A handle's lifetime state: the calls in flight and the destroyed flags.
#[derive(Default)]
pub(crate) struct Life {
    state: AtomicUsize,
}

impl Life {
    /// A fresh state: no call in flight, not destroyed.
    pub(crate) const fn new() -> Self {
        Life {
            state: AtomicUsize::new(0),
        }
    }

    /// True once `_free` has begun on the handle.
    pub(crate) fn is_destroyed(&self) -> bool {
        self.state.load(Ordering::Acquire) & DESTROYED != 0
    }
}

/// The live handles of one type, by address.
pub(crate) struct Registry(RwLock<BTreeSet<usize>>);

impl Registry {
    pub(crate) const fn new() -> Self {
        Registry(RwLock::new(BTreeSet::new()))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeSet<usize>> {
        self.0.read_locked()
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeSet<usize>> {
        self.0.write_locked()
    }
}

/// A client handle type under the lifetime contract.
pub(crate) trait Handle: Sized + 'static {
    /// The handle's name in errors ("producer").
    const NAME: &'static str;
    /// The registry of live handles of this type.
    fn registry() -> &'static Registry;
    /// The handle's lifetime state.
    fn life(&self) -> &Life;
    /// Stops the client so that calls blocked in it return promptly. Runs
    /// once, from `_free`, while other threads may still be inside calls.
    fn shutdown(&self);
}

/// Implements [`Handle::registry`] with a registry of its own.
macro_rules! handle_registry {
    () => {
        fn registry() -> &'static $crate::ffi::lifetime::Registry {
            static R: $crate::ffi::lifetime::Registry = $crate::ffi::lifetime::Registry::new();
            &R
        }
    };
}
pub(crate) use handle_registry;

/// `_free`s waiting for calls in flight to leave. Global, not per handle: a
/// call leaving touches nothing of the handle after its count reaches zero,
/// since the `_free` that sees zero drops the handle at once.
static DRAINED: (Mutex<()>, Condvar) = (Mutex::new(()), Condvar::new());

thread_local! {
    /// The handles this thread is inside a call on (innermost last).
    static ENTERED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    /// Set when a call on a handle ends after `_free` began on it; read
    /// (and reset) by `guard_code`, which then returns `GREGOR_ERR__DESTROY`.
    static OVERLAPPED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, telling whether a call it made on a handle overlapped that
/// handle's `_free` (nests: an outer scope keeps its own flag).
pub(crate) fn overlap_scope<R>(f: impl FnOnce() -> R) -> (R, bool) {
    let saved = OVERLAPPED.try_with(|o| o.replace(false)).unwrap_or(false);
    let r = f();
    let hit = OVERLAPPED.try_with(|o| o.replace(saved)).unwrap_or(false);
    (r, hit)
}

/// The error of a call on a handle that is not (or no longer) live.
pub(crate) fn destroyed_error(name: &str) -> Error {
    Error::local(
        local::DESTROY,
        format!("{name} handle destroyed (freed, being freed, or not a {name})"),
    )
}

/// Registers a new handle and gives its address to the caller.
pub(crate) fn register<T: Handle>(h: Box<T>) -> *mut T {
    let p = Box::into_raw(h);
    T::registry().write().insert(p as usize);
    p
}

/// A call in flight on a live handle: derefs to it; dropping it ends the call.
pub(crate) struct Entered<T: Handle> {
    p: *const T,
}

impl<T: Handle> Deref for Entered<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the handle is not dropped while this call is counted in
        // flight (`destroy` waits for the count to reach zero).
        unsafe { &*self.p }
    }
}

impl<T: Handle> Drop for Entered<T> {
    fn drop(&mut self) {
        let addr = self.p as usize;
        let _ = ENTERED.try_with(|e| {
            let mut e = e.borrow_mut();
            if let Some(i) = e.iter().rposition(|a| *a == addr) {
                e.remove(i);
            }
        });
        // SAFETY: still counted in flight, so still allocated.
        let life = unsafe { &*self.p }.life();
        let prev = life.state.fetch_sub(1, Ordering::AcqRel);
        if prev & DESTROYED == 0 {
            return;
        }
        let _ = OVERLAPPED.try_with(|o| o.set(true));
        if prev & COUNT != 1 {
            return;
        }
        // The last call out of a handle being freed: its `_free` waits. From
        // here on the handle may be gone: only `prev` and the global condvar
        // are used.
        let _g = DRAINED.0.locked();
        DRAINED.1.notify_all();
    }
}

/// Enters a call on handle `p`: `GREGOR_ERR__INVALID_ARG` for NULL,
/// `GREGOR_ERR__DESTROY` for an address that is not a live handle of type `T`.
pub(crate) fn enter<T: Handle>(p: *const T) -> Result<Entered<T>, Error> {
    if p.is_null() {
        return Err(Error::invalid_arg(format!("{} is NULL", T::NAME)));
    }
    {
        let live = T::registry().read();
        if !live.contains(&(p as usize)) {
            return Err(destroyed_error(T::NAME));
        }
        // SAFETY: live in the registry, and `destroy` takes it out under the
        // write lock before dropping it, so it is allocated while we count.
        unsafe { &*p }.life().state.fetch_add(1, Ordering::AcqRel);
    }
    let _ = ENTERED.try_with(|e| e.borrow_mut().push(p as usize));
    Ok(Entered { p })
}

/// Frees handle `p` under the contract: no-op for NULL or an address that is
/// not a live handle of type `T` (a second free); otherwise stops new calls,
/// shuts the client down so blocked calls return, waits for the calls in
/// flight, and drops the handle. Refused (a no-op) from inside a call on
/// `p` on this thread: it would wait for itself.
pub(crate) fn destroy<T: Handle>(p: *mut T) {
    if p.is_null() {
        return;
    }
    let addr = p as usize;
    let reentrant = ENTERED
        .try_with(|e| e.borrow().contains(&addr))
        .unwrap_or(false);
    if reentrant {
        return;
    }
    if !T::registry().write().remove(&addr) {
        return;
    }
    // SAFETY: was live; only this free (which took it out of the registry)
    // may drop it.
    let h = unsafe { &*p };
    h.life().state.fetch_or(DESTROYED, Ordering::AcqRel);
    h.shutdown();
    let mut g = DRAINED.0.locked();
    while h.life().state.load(Ordering::Acquire) & COUNT != 0 {
        g = DRAINED.1.wait(g).unwrap_or_else(|e| e.into_inner());
    }
    drop(g);
    // SAFETY: out of the registry, no call in flight: nothing else can reach it.
    drop(unsafe { Box::from_raw(p) });
}

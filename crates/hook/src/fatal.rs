//! A hook process that dies lets the call run: Claude Code, Gemini CLI and
//! the clients built like them take an exit status other than 0 or 2 for a
//! hook's own error and go on. A panic is caught and answered; a fatal
//! signal is not a panic. A fault in C code the analysis links (the shell
//! grammar's scanner), a stack overflow, an abort: each must still end in
//! the client's blocking reply. So before anything is read, the blocking
//! reply is rendered, and a handler for the fatal signals writes it and
//! exits with its status.

use std::sync::OnceLock;

use crate::HookReply;

/// The blocking reply, rendered before the call is read: what the handler
/// writes to standard output and standard error, and the exit status.
static REPLY: OnceLock<(Vec<u8>, Vec<u8>, i32)> = OnceLock::new();

/// The signals that end a process on a fault or an abort.
const FATAL: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

/// Makes every fatal signal of this process end in `reply`. The first
/// reply set stays (a process answers one call).
pub(crate) fn block_on_fatal_signals(reply: &HookReply) {
    let mut stderr = reply.stderr.clone().into_bytes();
    if !stderr.ends_with(b"\n") {
        stderr.push(b'\n');
    }
    let rendered = (
        reply.stdout.clone().into_bytes(),
        stderr,
        i32::from(reply.exit_code),
    );
    if REPLY.set(rendered).is_err() {
        return;
    }
    for signal in FATAL {
        // SAFETY: `action` is fully initialised (zeroed, then its handler,
        // flags and an empty mask set) before it is passed; `handler` only
        // calls async-signal-safe functions (`write`, `_exit`) and reads
        // `REPLY`, which was set above and is never changed again.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // The alternate stack the runtime set up for the main thread
            // is where a stack overflow can still be answered.
            action.sa_flags = libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

extern "C" fn handler(_signal: libc::c_int) {
    let status = match REPLY.get() {
        Some((stdout, stderr, status)) => {
            write_all(libc::STDOUT_FILENO, stdout);
            write_all(libc::STDERR_FILENO, stderr);
            *status
        }
        None => 2,
    };
    // SAFETY: `_exit` is async-signal-safe and does not return.
    unsafe { libc::_exit(status) }
}

/// `write(2)` until `bytes` are written or the descriptor fails.
fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length describe `bytes`, alive for the
        // call.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        let Ok(n) = usize::try_from(n) else {
            return;
        };
        if n == 0 {
            return;
        }
        bytes = bytes.get(n..).unwrap_or_default();
    }
}

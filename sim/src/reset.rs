//! The fake's [`Reply::Reset`](super::fake::Reply::Reset): a connection closed without any HTTP
//! answer, as a crashed or overloaded Slack edge would.

use std::time::Duration;

/// Drops the connection without an HTTP answer. tiny_http cannot do this by itself: a `Request`
/// dropped unanswered sends a 500, and dropping its writer (`into_writer`) leaves the keep-alive
/// socket open while the connection thread waits for the next request. So the writer is dropped
/// unwritten, and the server's socket of this connection (found among the process's descriptors by
/// its two addresses) gets `SO_LINGER` 0 and is shut down both ways: the client sees the connection
/// closed or reset; tiny_http's reader sees EOF and closes the socket. Where the socket cannot be
/// found, the client is left waiting far longer than any client timeout instead.
pub fn reset(request: tiny_http::Request, port: u16) {
    let peer = request.remote_addr().copied();
    drop(request.into_writer());
    let local = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    if !peer.is_some_and(|peer| shut_down_socket(local, peer)) {
        std::thread::sleep(Duration::from_secs(600));
    }
}

fn shut_down_socket(local: std::net::SocketAddr, peer: std::net::SocketAddr) -> bool {
    use std::os::fd::FromRawFd;
    let Ok(dir) = std::fs::read_dir("/proc/self/fd").or_else(|_| std::fs::read_dir("/dev/fd")) else { return false };
    let fds: Vec<i32> = dir.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect();
    for fd in fds {
        // Borrowed, never closed here: the socket stays tiny_http's. A descriptor closed meanwhile
        // (or not a socket) fails these lookups; only this connection has both addresses.
        let stream = std::mem::ManuallyDrop::new(unsafe { std::net::TcpStream::from_raw_fd(fd) });
        if stream.local_addr().ok() == Some(local) && stream.peer_addr().ok() == Some(peer) {
            reset_on_close(&stream);
            return stream.shutdown(std::net::Shutdown::Both).is_ok();
        }
    }
    false
}

/// Makes closing `stream` reset the connection (`SO_LINGER` 0) instead of a FIN: no answer for
/// the peer, and no socket left in TIME_WAIT for a minute (the fake's `unstick` opens ten
/// connections a second per fake; closed politely they keep thousands of sockets in the kernel's
/// table while a test suite runs, and every socket listing walks them).
pub(super) fn reset_on_close(stream: &std::net::TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    let size = std::mem::size_of::<libc::linger>() as libc::socklen_t;
    // SAFETY: a socket descriptor borrowed for the call, and a `linger` of the size given.
    unsafe { libc::setsockopt(stream.as_raw_fd(), libc::SOL_SOCKET, libc::SO_LINGER, &linger as *const _ as *const libc::c_void, size) };
}

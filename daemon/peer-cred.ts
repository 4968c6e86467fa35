/**
 * Who is on the other end of a Unix socket: the peer's uid from the kernel (Linux SO_PEERCRED, macOS
 * getpeereid), through bun:ffi on the connection's fd. Bun does not document a socket's `fd`; where it or the
 * call is missing the answer is undefined and the socket's private folder (socket-dir.ts) is the only guard.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";

type Lookup = (fd: number) => number | undefined;

let lookup: Lookup | null | undefined;

function linux(): Lookup {
  const lib = dlopen("libc.so.6", {
    getsockopt: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  });
  // SOL_SOCKET 1, SO_PEERCRED 17 (x64 and arm64); struct ucred { pid_t pid; uid_t uid; gid_t gid; }.
  return (fd) => {
    const cred = new Int32Array(3);
    const len = new Uint32Array([12]);
    return lib.symbols.getsockopt(fd, 1, 17, ptr(cred), ptr(len)) === 0 ? cred[1]! >>> 0 : undefined;
  };
}

function mac(): Lookup {
  const lib = dlopen("/usr/lib/libSystem.B.dylib", {
    getpeereid: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  });
  return (fd) => {
    const uid = new Uint32Array(1);
    const gid = new Uint32Array(1);
    return lib.symbols.getpeereid(fd, ptr(uid), ptr(gid)) === 0 ? uid[0] : undefined;
  };
}

function load(): Lookup | null {
  if (lookup === undefined) {
    try {
      lookup = process.platform === "linux" ? linux() : process.platform === "darwin" ? mac() : null;
    } catch {
      lookup = null;
    }
  }
  return lookup;
}

/** The peer's uid, or undefined when the OS (or Bun) does not tell. */
export function peerUid(socket: unknown): number | undefined {
  const fd = (socket as { fd?: unknown }).fd;
  if (typeof fd !== "number" || fd < 0) return undefined;
  return load()?.(fd);
}

/** Whether peer credentials can be read here at all (logged at start-up). */
export function peerCredAvailable(): boolean {
  return load() !== null;
}

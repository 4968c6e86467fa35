/** upload / download (protocol/methods/files.ts); the transfer plumbing is the daemon's. */
import type { fileMethods } from "../../../protocol/methods/files.ts";
import { download } from "../features/files/download.ts";
import { upload } from "../features/files/upload.ts";
import type { FamilyHandlers } from "../shared/handler.ts";

export const fileHandlers: FamilyHandlers<typeof fileMethods> = {
  upload: (p, { signal }) => upload(p, signal),
  download: (p, { signal, progress }) => download(p, signal, progress),
};

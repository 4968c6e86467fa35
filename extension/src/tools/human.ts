/** request_help: asking the person for help in a tab (see help/request.ts). */
import type { humanMethods } from "../../../protocol/methods/human.ts";
import { requestHelp } from "../features/help/request.ts";
import type { FamilyHandlers } from "../shared/handler.ts";

export const humanHandlers: FamilyHandlers<typeof humanMethods> = {
  request_help: (p, { signal }) => requestHelp(p, signal),
};

/** navigate / navigate.back / navigate.forward / reload (features/navigate.ts). */
import type { navigationMethods } from "../../../protocol/methods/navigation.ts";
import { goHistory, navigate, reload } from "../features/navigate.ts";
import type { FamilyHandlers } from "../shared/handler.ts";

export const navigationHandlers: FamilyHandlers<typeof navigationMethods> = {
  navigate: async (p, { signal }) => navigate(p, signal),

  "navigate.back": async (p, { signal }) => goHistory(p, signal, -1),

  "navigate.forward": async (p, { signal }) => goHistory(p, signal, 1),

  reload: async (p, { signal }) => reload(p, signal),
};

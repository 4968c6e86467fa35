/**
 * Who may hold the overlay's life port (shared/messages/overlay.ts OVERLAY_LIFE_PORT): bsk's own overlay script, which
 * runs only in a tab's top frame. The port carries nothing; anything else that connects under its name is cut off.
 */
export interface PortSender {
  id?: string;
  tab?: { id?: number };
  frameId?: number;
}

export function lifePortFrom(sender: PortSender | undefined, extensionId: string): boolean {
  return sender?.id === extensionId && sender.tab?.id !== undefined && sender.frameId === 0;
}

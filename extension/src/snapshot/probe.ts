/** observe --probe-hover: hover likely menu triggers to reveal hover-only items (filled in below). */
export async function probeHover(_sessionId: string, _tabId: number, _budgetMs: number, _signal?: AbortSignal): Promise<string[]> {
  return [];
}

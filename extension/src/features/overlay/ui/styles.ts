/**
 * The overlay's stylesheet (adopted by its closed shadow root, so the page's CSS and CSP do not touch it).
 * Nothing takes pointer events except the buttons, the help panel and its field: the person's clicks and an
 * agent's hit test go through everything else.
 */
export const OVERLAY_CSS = `
:host { all: initial; }
* { box-sizing: border-box; }
.root { position: fixed; inset: 0; pointer-events: none; font: 13px/1.35 system-ui, -apple-system, "Segoe UI", "PingFang SC", "Microsoft YaHei", sans-serif; color: #1d1d1f; }
[hidden] { display: none !important; }

.glow { position: fixed; inset: 0; pointer-events: none; opacity: 0; transition: opacity .3s ease-out;
  box-shadow: inset 0 0 0 3px rgba(255, 138, 0, .85), inset 0 0 28px 4px rgba(255, 138, 0, .45); }
.glow.on { opacity: 1; transition-duration: .1s; }

.pill { position: fixed; left: 50%; bottom: 12px; transform: translateX(-50%); display: flex; align-items: center; gap: 8px;
  padding: 5px 6px 5px 12px; border-radius: 999px; background: rgba(28, 28, 30, .92); color: #fff; pointer-events: none;
  box-shadow: 0 4px 18px rgba(0, 0, 0, .25); white-space: nowrap; max-width: calc(100vw - 24px); }
:host([data-bsk-dodge="top"]) .pill { bottom: auto; top: 12px; }
.dot { width: 8px; height: 8px; border-radius: 50%; background: #ff8a00; flex: none; }
.pill.busy .dot { animation: pulse 1s ease-in-out infinite; }
.pill.taken .dot { background: #34c759; animation: none; }
@keyframes pulse { 50% { opacity: .35; } }
.label { overflow: hidden; text-overflow: ellipsis; }
[data-said]::before { content: attr(data-said); }
.name { color: #c7c7cc; overflow: hidden; text-overflow: ellipsis; max-width: 180px; }
button { pointer-events: auto; font: inherit; cursor: pointer; border: 0; border-radius: 999px; padding: 4px 11px; }
.pill button { background: #3a3a3c; color: #fff; }
.pill button:hover { background: #48484a; }
.pill button.stop { background: #d70015; }
.pill button.stop:hover { background: #ff3b30; }
button:focus-visible { outline: 2px solid #0a84ff; outline-offset: 2px; }

.panel { position: fixed; top: 16px; right: 16px; width: 330px; max-width: calc(100vw - 32px); pointer-events: auto;
  background: #fff; color: #1d1d1f; border-radius: 12px; box-shadow: 0 10px 36px rgba(0, 0, 0, .28), 0 0 0 1px rgba(0, 0, 0, .08); overflow: hidden; }
.head { display: flex; align-items: center; gap: 8px; padding: 10px 12px; background: #ff8a00; color: #fff; font-weight: 600; cursor: move; user-select: none; touch-action: none; }
.head .grip { margin-left: auto; opacity: .8; font-weight: 400; }
.body { padding: 10px 12px 12px; display: flex; flex-direction: column; gap: 8px; }
.prompt { white-space: pre-wrap; word-wrap: break-word; font-size: 14px; max-height: 40vh; overflow: auto; }
.hint { color: #6e6e73; font-size: 12px; }
iframe.note { display: block; width: 100%; height: 64px; border: 0; border-radius: 8px; pointer-events: auto; background: #fff; color-scheme: light; }
.actions { display: flex; justify-content: flex-end; gap: 8px; }
.panel button { background: #e5e5ea; color: #1d1d1f; padding: 6px 14px; }
.panel button.primary { background: #0a84ff; color: #fff; }

.panel.record { width: 240px; top: auto; bottom: 16px; }
.panel.record .head { background: #1c1c1e; cursor: default; }
.rec-dot { width: 9px; height: 9px; border-radius: 50%; background: #ff3b30; animation: pulse 1.4s ease-in-out infinite; }
.panel.record .actions { align-items: center; }
.panel.record .steps { margin-right: auto; }

.panel.approval { top: 16px; left: 50%; right: auto; transform: translateX(-50%); width: 360px; }
.panel.approval .head { background: #d70015; cursor: default; }
.panel.approval iframe.text { display: block; width: 100%; height: 84px; border: 0; background: #fff; color-scheme: light; }
/* Never opacity: the browser would count a translucent Allow as not visible (approval-panel.ts), and it stays off. */
.panel button:disabled { background: #d1d1d6; color: #8e8e93; cursor: default; }
.panel button.primary:disabled { background: #9ec9ff; color: #fff; }

.mark { position: fixed; pointer-events: none; border-radius: 6px; box-shadow: 0 0 0 3px #ff8a00, 0 0 0 7px rgba(255, 138, 0, .35); animation: flash 1.2s ease-in-out 3; }
@keyframes flash { 50% { box-shadow: 0 0 0 3px #ff8a00, 0 0 0 12px rgba(255, 138, 0, .1); } }
`;

/**
 * The words the person reads (popup, overlays, help panel, consent window), in English and Simplified Chinese,
 * following the browser's UI language. `t(key, {name: …})` fills `{name}` placeholders. Every key exists in both
 * tables (the compiler checks ZH against EN).
 */
const EN = {
  // control pill and glow
  "pill.remote": "remote agent on {host}",
  "remote.title": "Remote connection",
  "remote.link": "Pairing link (from bsk daemon pair on the server)",
  "remote.check": "Check",
  "remote.confirm_text": "Connect this browser to {host}? Its key fingerprint must be {key} (bsk daemon status on the server shows it).",
  "remote.confirm": "Confirm and pair",
  "remote.cancel": "Cancel",
  "remote.working": "Pairing…",
  "remote.paired": "Paired with {host} as {device}.",
  "links.title": "Links",
  "links.local": "this computer (port {port})",
  "links.remote": "remote: {host}",
  "links.disconnect": "Disconnect",
  "links.connect": "Connect",
  "links.none": "No remote link.",
  "remote.state.connecting": "connecting",
  "remote.state.connected": "connected",
  "remote.state.disconnected": "disconnected",
  "remote.state.untrusted": "not proven",
  "remote.state.refused": "refused",
  "remote.state.expired": "expired",
  "remote.state.revoked": "revoked",
  "session.remote": "remote agent on {host}",
  "pill.working": "Agent is working",
  "pill.taken_over": "You have control",
  "pill.takeover": "Take over",
  "pill.takeover_title": "Pause the agent and use this tab yourself",
  "pill.resume": "Resume",
  "pill.resume_title": "Give control back to the agent",
  "pill.stop": "Stop",
  "pill.stop_title": "End the agent's session and close its tabs",
  // help panel
  "help.title": "The agent needs your help",
  "help.note": "Note for the agent (optional)",
  "help.done": "Done",
  "help.cancel": "Cancel",
  "help.drag": "Drag to move",
  "help.waiting": "The agent continues by itself once this is done.",
  // record panel
  "record.title": "Recording",
  "record.finish": "Finish",
  "record.finish_title": "Stop recording and hand the steps to the agent",
  "record.step_one": "1 step",
  "record.steps": "{n} steps",
  // popup
  "popup.connected": "Connected",
  "popup.connecting": "Connecting",
  "popup.version_skew": "Version skew",
  "popup.off": "Off",
  "popup.skew_note": "(versions differ)",
  "popup.extension": "extension",
  "popup.daemon": "daemon",
  "popup.protocol": "protocol",
  "popup.instance": "instance",
  "popup.label": "label",
  "popup.port": "port",
  "popup.save": "Save",
  "popup.sessions": "Sessions",
  "popup.no_sessions": "No live sessions.",
  "popup.tab_one": "1 tab",
  "popup.tabs": "{n} tabs",
  "popup.taken_over": "you have control",
  "popup.recording": "recording your steps",
  "popup.settings": "Settings",
  "popup.confirm_borrow": "Confirm before borrowing tabs",
  "popup.allow_help": "Allow help requests",
  "popup.show_hints": "Show control hints",
  "popup.allow_file_urls": "Let sessions open local files (file://)",
  "popup.auto_takeover": "Take over when I use an agent tab",
  "popup.bad_port": "1–65535",
  "popup.empty": "empty",
  "popup.not_paired": "Not paired",
  "popup.untrusted": "Untrusted daemon",
  // pairing (entrypoints/popup/Pairing.tsx)
  "pairing.title": "Pairing",
  "pairing.paired": "Paired with bsk · key {key}",
  "pairing.not_paired":
    "This browser is not paired with bsk yet. Run bsk daemon start (or bsk native install) on this computer and reopen this popup, or enter a code from bsk daemon pair.",
  "pairing.untrusted": "The program on port {port} could not prove it is your bsk. Nothing is sent to it.",
  "pairing.code": "code",
  "pairing.pair": "Pair",
  "pairing.working": "Pairing…",
  "pairing.done": "Paired · key {key}",
  "pairing.forget": "Forget",
  // consent window (tab borrowing)
  "consent.title": "Lend a tab to the agent?",
  "consent.body": "Session {session} asks to use this tab:",
  "consent.allow": "Allow",
  "consent.deny": "Deny",
  "consent.countdown": "Closes in {s} s; no answer means no.",
  "consent.explain":
    "If you allow it, the tab moves into the agent's window as it is (signed in, with anything you typed) and the agent can read and use it. It comes back here when the agent returns it or its session ends. A tab that opened, or was opened by, another of your tabs is never lent: their pages can reach each other.",
  "consent.allowed": "Allowed: moving the tab…",
  "consent.denied": "Denied.",
} as const;

export type MessageKey = keyof typeof EN;

export const MESSAGE_KEYS = Object.keys(EN) as MessageKey[];

const ZH: Record<MessageKey, string> = {
  "pill.remote": "远程智能体位于 {host}",
  "remote.title": "远程连接",
  "remote.link": "配对链接（在服务器上运行 bsk daemon pair 获得）",
  "remote.check": "检查",
  "remote.confirm_text": "将此浏览器连接到 {host}？其密钥指纹必须是 {key}（在服务器上运行 bsk daemon status 可查看）。",
  "remote.confirm": "确认并配对",
  "remote.cancel": "取消",
  "remote.working": "正在配对…",
  "remote.paired": "已与 {host} 配对，设备 {device}。",
  "links.title": "连接",
  "links.local": "本机（端口 {port}）",
  "links.remote": "远程：{host}",
  "links.disconnect": "断开",
  "links.connect": "连接",
  "links.none": "没有远程连接。",
  "remote.state.connecting": "正在连接",
  "remote.state.connected": "已连接",
  "remote.state.disconnected": "已断开",
  "remote.state.untrusted": "未通过验证",
  "remote.state.refused": "被拒绝",
  "remote.state.expired": "已过期",
  "remote.state.revoked": "已撤销",
  "session.remote": "远程智能体位于 {host}",
  "pill.working": "智能体正在操作",
  "pill.taken_over": "您已接管",
  "pill.takeover": "接管",
  "pill.takeover_title": "暂停智能体，由您自己操作此标签页",
  "pill.resume": "继续",
  "pill.resume_title": "将控制权交还给智能体",
  "pill.stop": "停止",
  "pill.stop_title": "结束智能体会话并关闭其标签页",
  "help.title": "智能体需要您的帮助",
  "help.note": "给智能体的备注（可选）",
  "help.done": "完成",
  "help.cancel": "取消",
  "help.drag": "拖动以移动",
  "help.waiting": "完成后智能体会自动继续。",
  "record.title": "正在录制",
  "record.finish": "完成",
  "record.finish_title": "停止录制，把步骤交给智能体",
  "record.step_one": "1 个步骤",
  "record.steps": "{n} 个步骤",
  "popup.connected": "已连接",
  "popup.connecting": "连接中",
  "popup.version_skew": "版本不一致",
  "popup.off": "未连接",
  "popup.skew_note": "（版本不同）",
  "popup.extension": "扩展",
  "popup.daemon": "守护进程",
  "popup.protocol": "协议",
  "popup.instance": "实例",
  "popup.label": "名称",
  "popup.port": "端口",
  "popup.save": "保存",
  "popup.sessions": "会话",
  "popup.no_sessions": "没有进行中的会话。",
  "popup.tab_one": "1 个标签页",
  "popup.tabs": "{n} 个标签页",
  "popup.taken_over": "您已接管",
  "popup.recording": "正在记录您的操作",
  "popup.settings": "设置",
  "popup.confirm_borrow": "借用标签页前先询问我",
  "popup.allow_help": "允许求助请求",
  "popup.show_hints": "显示控制提示",
  "popup.allow_file_urls": "允许会话打开本地文件 (file://)",
  "popup.auto_takeover": "我操作代理标签页时自动接管",
  "popup.bad_port": "1–65535",
  "popup.empty": "不能为空",
  "popup.not_paired": "未配对",
  "popup.untrusted": "守护进程不可信",
  "pairing.title": "配对",
  "pairing.paired": "已与 bsk 配对 · 密钥 {key}",
  "pairing.not_paired":
    "此浏览器尚未与 bsk 配对。请在本机运行 bsk daemon start（或 bsk native install）后重新打开此弹窗，或输入 bsk daemon pair 给出的配对码。",
  "pairing.untrusted": "端口 {port} 上的程序无法证明它是您的 bsk，不会向它发送任何内容。",
  "pairing.code": "配对码",
  "pairing.pair": "配对",
  "pairing.working": "配对中…",
  "pairing.done": "已配对 · 密钥 {key}",
  "pairing.forget": "取消配对",
  "consent.title": "将标签页借给智能体？",
  "consent.body": "会话 {session} 请求使用此标签页：",
  "consent.allow": "允许",
  "consent.deny": "拒绝",
  "consent.countdown": "{s} 秒后关闭；未回答即视为拒绝。",
  "consent.explain":
    "如果允许，这个标签页会原样移入智能体的窗口（保持登录状态和您输入的内容），智能体可以读取并操作它。智能体归还或其会话结束时，它会回到这里。与您其他标签页相互打开过的标签页不会被借出：它们的页面可以互相访问。",
  "consent.allowed": "已允许：正在移动标签页…",
  "consent.denied": "已拒绝。",
};

export type Lang = "en" | "zh-CN";

/** zh, zh-CN, zh-Hans, zh-SG → Simplified Chinese; everything else (zh-TW and zh-HK included) → English. */
export function pickLang(tag: string | undefined): Lang {
  const t = (tag ?? "").toLowerCase().replace(/_/g, "-");
  if (t === "zh" || t.startsWith("zh-cn") || t.startsWith("zh-hans") || t.startsWith("zh-sg")) return "zh-CN";
  return "en";
}

function browserLanguage(): string | undefined {
  try {
    const ui = (globalThis as { chrome?: { i18n?: { getUILanguage?: () => string } } }).chrome?.i18n?.getUILanguage?.();
    if (ui) return ui;
  } catch {
    /* not an extension context */
  }
  return globalThis.navigator?.language;
}

let lang: Lang = pickLang(browserLanguage());

export function currentLang(): Lang {
  return lang;
}

/** Overrides the browser's language (tests, a page opened with ?lang=). */
export function setLang(tag: string | undefined): void {
  lang = tag ? pickLang(tag) : pickLang(browserLanguage());
}

export function t(key: MessageKey, vars?: Record<string, string | number>, to: Lang = lang): string {
  const text: string = to === "zh-CN" ? ZH[key] : EN[key];
  return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)) : text;
}

/** The consent window's text in English and Simplified Chinese, following the browser's language. */
const EN = {
  heading: "An agent asks to borrow one of your tabs",
  session: "Asked by",
  sessionId: (id: string) => `session ${id}`,
  explain:
    "If you allow it, this tab moves into the agent's window as it is (signed in, with anything you typed) and the agent can read and use it. It comes back here when the agent returns it or its session ends.",
  countdown: (s: number) => `No answer in ${s} s counts as Deny.`,
  allow: "Allow",
  deny: "Deny",
  allowed: "Allowed: moving the tab…",
  denied: "Denied.",
};

const ZH: typeof EN = {
  heading: "一个智能体请求借用你的一个标签页",
  session: "请求方",
  sessionId: (id: string) => `会话 ${id}`,
  explain:
    "如果允许，这个标签页会原样移入智能体的窗口（保持登录状态和你输入的内容），智能体可以读取并操作它。智能体归还或其会话结束时，它会回到这里。",
  countdown: (s: number) => `${s} 秒内未回答将视为拒绝。`,
  allow: "允许",
  deny: "拒绝",
  allowed: "已允许：正在移动标签页…",
  denied: "已拒绝。",
};

export function strings(language: string): typeof EN {
  return language.toLowerCase().startsWith("zh") ? ZH : EN;
}

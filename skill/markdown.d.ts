/** Markdown imported as text (`import x from "./file.md" with { type: "text" }`): Bun inlines it into the binary. */
declare module "*.md" {
  const text: string;
  export default text;
}

// Evidence text in a page: escaped so that it can only ever be text, never markup or script.

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for an element's content or a quoted attribute value. */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/**
 * A value as JSON inside `<script type="application/json">`: every `<`, `>` and `&` (and the two
 * line separators JavaScript once treated as newlines) as a \u escape, so no `</script>` or `<!--`
 * in evidence can end or comment out the element; JSON.parse reads the same value back.
 */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

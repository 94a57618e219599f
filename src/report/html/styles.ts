// The page's style: system fonts only (no font is fetched), light and dark by prefers-color-scheme,
// one column on a phone, and a print layout without the table's controls. Charts draw in
// currentColor, so they follow the scheme.

export const STYLES = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1b1b; --muted: #5a5a5a; --line: #d0d0d0; --card: #f6f6f6; --bad: #b34700; --accent: #0072B2; }
@media (prefers-color-scheme: dark) { :root { --bg: #151515; --fg: #ececec; --muted: #a8a8a8; --line: #3a3a3a; --card: #1f1f1f; --bad: #ff9e5e; --accent: #56B4E9; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 1rem; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; } h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
a { color: var(--accent); }
.muted, small { color: var(--muted); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; overflow-wrap: anywhere; }
.metrics { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: .5rem; margin: .5rem 0; }
.metric { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; display: flex; flex-direction: column; }
.metric b { font-size: 1.4rem; font-variant-numeric: tabular-nums; } .metric span { font-weight: 600; overflow-wrap: break-word; hyphens: manual; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; margin: .5rem 0; }
.chart { margin: 0; max-width: 100%; overflow-x: auto; } .chart svg { max-width: 100%; height: auto; display: block; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
caption { text-align: left; color: var(--muted); padding: .25rem 0; }
.claims td:nth-child(2), .claims td:nth-child(3) { text-align: right; }
details { margin: .25rem 0; } summary { cursor: pointer; }
ul.list { margin: .25rem 0; padding-left: 1.25rem; } ul.list li { overflow-wrap: anywhere; }
.experiment { border-top: 3px solid var(--line); margin-top: 2rem; }
.warn { color: var(--bad); font-weight: 600; } .ok { color: #009E73; font-weight: 600; }
.survey-scroll { overflow-x: auto; }
#survey th { cursor: pointer; user-select: none; white-space: nowrap; background: var(--card); }
#survey th[aria-sort="ascending"]::after { content: " ▲"; } #survey th[aria-sort="descending"]::after { content: " ▼"; }
#survey { font-size: .92em; } #survey th, #survey td { padding: .15rem .5rem; white-space: nowrap; } #survey td:first-child { white-space: normal; overflow-wrap: anywhere; min-width: 12rem; } #survey td.warn { font-weight: 600; }
#advisory { border: 2px dashed var(--muted); border-radius: 8px; padding: 0 1rem 1rem; margin-top: 2rem; }
#advisory h2 { border: none; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0; }
.filters label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
.filters input, .filters select { font: inherit; padding: .25rem; background: var(--bg); color: var(--fg); border: 1px solid var(--line); border-radius: 4px; min-width: 9rem; }
#trials { width: calc(100vw - 2rem); margin-left: calc(50% - 50vw + 1rem); } /* the widest table gets the whole window */
#trial-scroll { height: 60vh; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
#trial-table { table-layout: fixed; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
#trial-table thead th { position: sticky; top: 0; background: var(--card); cursor: pointer; user-select: none; white-space: nowrap; }
#trial-table thead th[aria-sort="ascending"]::after { content: " ▲"; } #trial-table thead th[aria-sort="descending"]::after { content: " ▼"; }
#trial-table tbody tr.row td { height: 28px; max-height: 28px; white-space: pre; padding-top: 0; padding-bottom: 0; line-height: 28px; }
#trial-table th, #trial-table td { padding-left: .625rem; padding-right: .625rem; }
#trial-table tr.spacer td { padding: 0; border: none; }
#trial-table td.invalid, #trial-table td.error { color: var(--bad); font-weight: 600; }
#trial-table td.skipped { color: var(--muted); }
.print-only { display: none; }
@media (max-width: 640px) { body { padding: .5rem; font-size: 14px; } .metrics { grid-template-columns: 1fr 1fr; } .metric b { font-size: 1.15rem; } }
@media print {
  :root { --bg: #fff; --fg: #000; --muted: #444; --card: #fff; --line: #bbb; --bad: #b34700; --accent: #0072B2; }
  body { max-width: none; } #trials { width: auto; margin-left: 0; } .filters { display: none; } .print-only { display: block; }
  #trial-scroll { height: auto; overflow: visible; border: none; } #trial-table thead th { position: static; }
  #trial-table { width: 100% !important; table-layout: auto; font-size: 9pt; } #trial-table col { width: auto !important; } #trial-table tbody tr.row td { white-space: normal; overflow-wrap: anywhere; height: auto; max-height: none; line-height: 1.3; }
  details { display: block; } details > * { display: block; }
  .experiment, .chart { break-inside: avoid; }
}
`;

// The advisory section: a model's judgements, apart from every hard figure and labelled as such.
// Nothing here is a data-metric: no test or tool can mistake it for a result.

import { terminalText } from "../../core/text.js";
import { shownAdvisory } from "../shown.js";
import { esc } from "./escape.js";
import { MAX_ADVISORY, type Survey } from "./survey.js";

export function advisorySection(s: Survey): string {
  if (s.first === null) return "";
  const a = shownAdvisory(s.first);
  const out = [
    `<section id="advisory" aria-labelledby="advisory-title"><h2 id="advisory-title">Advisory: a model's judgement (${esc(a.analysis)}, model ${esc(a.model ?? "none")})</h2>`,
    `<p><strong>Advisory only.</strong> It changes no verdict, state or metric above; every figure above comes from the evidence alone.</p>`,
    `<p>${s.analysed} analysed (${s.cached} from the cache), ${s.advised - s.analysed} not analysed.</p>`,
  ];
  if (s.notAnalysed.size > 0)
    out.push(
      `<ul class="list">${[...s.notAnalysed].map(([why, n]) => `<li>${n} not analysed: ${esc(terminalText(why))}</li>`).join("")}</ul>`,
    );
  if (s.notable.length > 0) {
    out.push(`<h3>Trials with a failing or errored criterion</h3><ul class="list">`);
    for (const e of s.notable) {
      const crit = Object.entries(e.advisory!.outcomes).filter(
        ([, o]) => o.outcome === "fail" || o.outcome === "error",
      );
      out.push(
        `<li><code>${esc(e.path)}</code><ul>${crit.map(([name, o]) => `<li><b>${esc(o.outcome)}</b> ${esc(name)}: ${esc(o.explanation.slice(0, 400))}</li>`).join("")}</ul></li>`,
      );
    }
    out.push(`</ul>`);
    if (s.notableCount > MAX_ADVISORY)
      out.push(
        `<p class="muted">… ${s.notableCount - MAX_ADVISORY} more with a failing or errored criterion (the JSON document has them all)</p>`,
      );
  }
  out.push(`</section>`);
  return out.join("\n");
}

import type { ServedSnapshot } from "../console-snapshot.js";
import { type Html, html } from "../html.js";
import { badge } from "./page-layout.js";

const STATE_TONE = { Owned: "good", Adopted: "neutral", Absent: "warn" } as const;

/** Every capability of the catalog as the engine detects it: Absent, Adopted or Owned, with the evidence. */
export function capabilitiesPage(snapshot: ServedSnapshot): Html {
  return html`<p class="muted">Owned: installed by the product, which may upgrade and release it. Adopted: installed by someone else; never changed nor uninstalled. Absent: installed when a resource first needs it.</p>
<table><thead><tr><th>Capability</th><th>State</th><th>Ready</th><th>Evidence</th><th>Release</th><th>Chart</th><th>Used by</th></tr></thead><tbody>${snapshot.status.capabilities.map(
    (c) => html`<tr id="${`capability-${c.name}`}"><td>${c.name}</td><td>${badge(c.state, STATE_TONE[c.state])}</td>
<td>${c.state === "Absent" ? "" : c.ready ? badge("Ready", "good") : badge("not Ready", "bad")}${c.waitingFor.length > 0 ? html`<div class="muted">waiting for ${c.waitingFor.join("; ")}</div>` : ""}${c.unavailable.length > 0 ? html`<div class="muted">${c.unavailable.join("; ")}</div>` : ""}</td>
<td class="message">${c.evidence}</td>
<td><code>${c.release.namespace}/${c.release.name}</code></td>
<td>${c.chartVersion ?? "—"}${c.chartVersion && c.chartVersion !== c.pinnedVersion ? html` <span class="muted">(pins ${c.pinnedVersion})</span>` : ""}${c.chartVersion ? "" : html` <span class="muted">pins ${c.pinnedVersion}</span>`}</td>
<td>${c.usedBy.length === 0 ? html`<span class="muted">none</span>` : c.usedBy.map((r) => html`<div><code>${r.kind} ${r.namespace}/${r.name}</code></div>`)}</td></tr>`,
  )}</tbody></table>`;
}

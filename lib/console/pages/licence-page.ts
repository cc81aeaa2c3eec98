import type { ServedSnapshot } from "../console-snapshot.js";
import { type Html, html } from "../html.js";
import { badge } from "./page-layout.js";

/** The licence in force, its features, and each kind's instances against its cap. */
export function licencePage(snapshot: ServedSnapshot): Html {
  const { licence } = snapshot.status;
  return html`<table><tbody>
<tr><th>Edition</th><td>${badge(licence.edition, licence.edition === "Licensed" ? "good" : "neutral")}${licence.stored ? "" : html` <span class="muted">no License navique in the cluster</span>`}</td></tr>
${licence.licenseId ? html`<tr><th>Licence</th><td><code>${licence.licenseId}</code></td></tr>` : ""}
${licence.expiresAt ? html`<tr><th>Expires</th><td>${licence.expiresAt} (${licence.daysLeft} days left)</td></tr>` : ""}
${licence.reason ? html`<tr><th>Why Community</th><td>${licence.reason}</td></tr>` : ""}
<tr><th>Features</th><td>${licence.features.length === 0 ? html`<span class="muted">none</span>` : licence.features.map((f) => html`${badge(f, "good")} `)}</td></tr>
</tbody></table>
<h2>Caps in use</h2>
<table><thead><tr><th>Kind</th><th>Instances</th><th>Cap</th><th>Admitted</th><th>Refused for the cap</th></tr></thead><tbody>${licence.caps.map(
    (c) =>
      html`<tr><td>${c.kind}</td><td>${c.instances}</td><td>${c.cap}</td><td>${c.admitted}</td><td>${
        c.refused.length === 0
          ? html`<span class="muted">none</span>`
          : c.refused.map((r) => html`${badge("refused", "bad")} <code>${r.namespace}/${r.name}</code> `)
      }</td></tr>`,
  )}</tbody></table>`;
}

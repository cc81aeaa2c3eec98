import type { ServedSnapshot } from "../console-snapshot.js";
import { type Html, html } from "../html.js";
import { conditionBadge, conditionsTable } from "./conditions.js";
import { badge } from "./page-layout.js";

/** Every resource of the product's kinds with Ready and its reason; each one's conditions, dependencies and capabilities unfolded on demand. */
export function resourcesPage(snapshot: ServedSnapshot): Html {
  const { resources } = snapshot.status;
  if (resources.length === 0) return html`<p class="muted">The cluster holds no resource of the product's kinds.</p>`;
  return html`<table><thead><tr><th>Kind</th><th>Namespace</th><th>Name</th><th>Ready</th><th>Reason</th><th>Message</th></tr></thead><tbody>${resources.map(
    (r) => html`<tr id="${`${r.kind}-${r.namespace}-${r.name}`}">
<td>${r.kind}</td><td>${r.namespace}</td><td>${r.name}</td>
<td>${conditionBadge("Ready", r.ready)}${r.stalled ? html` ${badge("Stalled", "bad")}` : ""}${r.deleting ? html` ${badge("Deleting", "warn")}` : ""}${r.current ? "" : html` ${badge("Stale", "warn")}`}</td>
<td>${r.reason}</td>
<td class="message">${r.message}<details><summary>${r.conditions.length} conditions · ${r.dependsOn.length} dependencies · ${r.capabilities.length} capabilities</summary>
${conditionsTable(r.conditions)}
${r.dependsOn.length > 0 ? html`<p>Depends on: ${r.dependsOn.map((d) => html`<code>${d.kind} ${d.namespace}/${d.name}</code> (${d.field}) `)}</p>` : ""}
${r.capabilities.length > 0 ? html`<p>Capabilities: ${r.capabilities.map((c) => html`<code>${c.name}</code> ${c.provenance} `)}</p>` : ""}
</details></td></tr>`,
  )}</tbody></table>`;
}

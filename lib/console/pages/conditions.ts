import type { Condition } from "../../api/conditions.js";
import { type Html, html } from "../html.js";
import { badge } from "./page-layout.js";

/** A condition's status as a badge: Ready True is good, Stalled True is bad, as their meaning goes. */
export function conditionBadge(type: string, status: string): Html {
  // A True condition is good news except for those that say something is wrong.
  const troubled = type === "Stalled" || type === "Reconciling";
  if (status === "Unknown") return badge("Unknown", "neutral");
  const good = (status === "True") !== troubled;
  return badge(status, good ? "good" : type === "Reconciling" ? "warn" : "bad");
}

/** Every condition of a resource, as its status holds them. */
export function conditionsTable(conditions: readonly Condition[]): Html {
  if (conditions.length === 0)
    return html`<p class="muted">No condition: no pass of the operator has written its status.</p>`;
  return html`<table><thead><tr><th>Type</th><th>Status</th><th>Reason</th><th>Message</th><th>Since</th></tr></thead><tbody>${conditions.map(
    (c) =>
      html`<tr><td>${c.type}</td><td>${conditionBadge(c.type, c.status)}</td><td>${c.reason}</td><td class="message">${c.message}</td><td>${c.lastTransitionTime ?? ""}</td></tr>`,
  )}</tbody></table>`;
}

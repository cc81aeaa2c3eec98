import { objectName } from "../../api/refs.js";

// The rules of a datastore's name, shared by every kind whose name becomes the name of what an operator
// makes (a CNPG Cluster, a Redis): stated once for zod and, as CEL and a pattern, for the apiserver.

/** A DNS-1035 label: what CloudNativePG requires of a Cluster name, the Services' rule. */
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The name of a resource that becomes a CNPG Cluster's name (a PostgresCluster; `<stack>-postgres` for a
 * Stack): an object name, at most `max` characters and a DNS-1035 label. `what` says what is named
 * after it. The apiserver enforces the same: the CRD's CEL rule (`datastoreNameRules`) and pattern.
 */
export function datastoreName(kind: string, max: number, what: string) {
  return objectName.superRefine((name, ctx) => {
    if (name.length > max) {
      ctx.addIssue({ code: "custom", message: nameTooLong(kind, max, String(name.length), what) });
    }
    // objectName already refuses what is no RFC 1123 name at all; this adds the label's own rules.
    if (/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) && !DNS_1035_LABEL.test(name)) {
      ctx.addIssue({ code: "custom", message: `${nameNotLabel(kind, what)} (received "${name}")` });
    }
  });
}

function nameTooLong(kind: string, max: number, received: string, what: string): string {
  return `a ${kind} name has at most ${max} characters, received ${received}: ${what}. Choose a shorter name`;
}

function nameNotLabel(kind: string, what: string): string {
  return `a ${kind} name must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, no '.'): ${what}. Rename it`;
}

/**
 * The CRD's rule for `datastoreName`'s length, in zod's words. CEL sees metadata.name unbounded, so a
 * message computed from it (the length received) or a regular expression over it exceeds the apiserver's
 * cost budget: the rule is a bare size() and its message states the limit; the label's form is the
 * schema's `pattern` on metadata.name (`DATASTORE_NAME_PATTERN`).
 */
export function datastoreNameRules(kind: string, max: number, what: string) {
  return [
    {
      rule: `size(self.metadata.name) <= ${max}`,
      message: `metadata.name: ${nameTooLong(kind, max, `more`, what)}`,
    },
  ];
}

/** The form of a datastore name, as a pattern the CRD schema puts on metadata.name. */
export const DATASTORE_NAME_PATTERN = DNS_1035_LABEL.source;

import { createHash } from "node:crypto";
import { gatewayOf, type IdentityOfGateway } from "./schema-parts.js";

/** The longest name of an object the LiteLLM operator's CRDs take: a Kubernetes object name. */
const MAX_NAME = 253;
const DIGEST_LENGTH = 8;

/**
 * Where an identity's LiteLLM object sits: beside the gateway's LiteLLMInstance, since the LiteLLM
 * operator resolves `instanceRef`, `teamRef` and `organizationRef` in the namespace of the object naming
 * them. Beside a Gateway of its own namespace it keeps the identity's name; beside a Gateway of another
 * namespace it is `<namespace>.<name>` — a namespace holds no dot, so two identities of different
 * namespaces never get the same name —, cut and ended with a digest of the whole past 253 characters.
 * A name taken there by someone else is never applied over (NameTaken).
 */
export function litellmPlacement(identity: IdentityOfGateway): { readonly namespace: string; readonly name: string } {
  const { namespace, name } = identity.metadata;
  const gateway = gatewayOf(identity);
  if (gateway.namespace === namespace) return { namespace, name };
  const whole = `${namespace}.${name}`;
  if (whole.length <= MAX_NAME) return { namespace: gateway.namespace, name: whole };
  const digest = createHash("sha256").update(whole).digest("hex").slice(0, DIGEST_LENGTH);
  const kept = whole.slice(0, MAX_NAME - DIGEST_LENGTH - 1).replace(/[-.]+$/, "");
  return { namespace: gateway.namespace, name: `${kept}-${digest}` };
}

/**
 * The name of the LiteLLM object made for another identity of the same namespace and Gateway (the Team a
 * User joins, a Team's Organization): what `teamRef` and `organizationRef` name.
 */
export function placedNameOf(identity: IdentityOfGateway, other: string): string {
  return litellmPlacement({ ...identity, metadata: { ...identity.metadata, name: other } }).name;
}

import { createHash, timingSafeEqual } from "node:crypto";
import { API_GROUP, OPERATOR_NAME } from "../api/group.js";
import type { KubeClient } from "../cluster/kube-client.js";
import { MANAGEMENT_PLANE_NAME, MANAGEMENT_PLANE_PLURAL } from "../kinds/management-plane/schema.js";

/** What the console makes of a token: who it is, or why it is refused (401: not authenticated, 403: not allowed). */
export type Verdict =
  | { readonly allowed: true; readonly user: string }
  | { readonly allowed: false; readonly status: 401 | 403; readonly reason: string };

/** Judges the token a request carries; the console shows nothing before it says allowed. */
export interface ConsoleAuthenticator {
  check(token: string): Promise<Verdict>;
  /** What the login page asks for. */
  readonly asks: string;
  /**
   * Whether a link may carry the token (`/login?key=…`): for navique console's own key only, never for a
   * token of the cluster, which would stay in the browser's history and the proxies' logs.
   */
  readonly signsInByLink: boolean;
}

/** What a user must be allowed to read the console: get the ManagementPlane (docs/console.md). */
export const CONSOLE_ACCESS = {
  group: API_GROUP,
  resource: MANAGEMENT_PLANE_PLURAL,
  name: MANAGEMENT_PLANE_NAME,
  verb: "get",
} as const;

/** The ClusterRole granting CONSOLE_ACCESS that the operator chart renders: bound to a user, it lets them read the console. */
export const CONSOLE_VIEWER_ROLE = `${OPERATOR_NAME}-console-viewer`;

/** How long a verdict is kept, per token: a revoked token or binding is refused within this time. */
export const VERDICT_TTL_MS = 30_000;
/** The most verdicts kept at once: beyond, the oldest are forgotten. */
const MOST_VERDICTS = 1_000;

/** A token's key in the verdict cache: its digest, so that no token is kept in memory longer than its request. */
function digest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Verdicts kept for VERDICT_TTL_MS by token digest; `judge` asked for the others, once for all the requests
 * that arrive with the same token while it judges (a browser asks for a page and its stylesheet at once):
 * one TokenReview and one SubjectAccessReview per token and TTL. A judgment that fails is not kept.
 */
export function cachedVerdicts(
  judge: (token: string) => Promise<Verdict>,
  now: () => number,
): (token: string) => Promise<Verdict> {
  const kept = new Map<string, { verdict: Verdict; until: number }>();
  const judging = new Map<string, Promise<Verdict>>();
  return async (token) => {
    const key = digest(token);
    const hit = kept.get(key);
    if (hit && hit.until > now()) return hit.verdict;
    const underWay = judging.get(key);
    if (underWay !== undefined) return underWay;
    const judgment = judge(token);
    judging.set(key, judgment);
    try {
      const verdict = await judgment;
      kept.delete(key);
      kept.set(key, { verdict, until: now() + VERDICT_TTL_MS });
      if (kept.size > MOST_VERDICTS) kept.delete(kept.keys().next().value as string);
      return verdict;
    } finally {
      judging.delete(key);
    }
  };
}

/**
 * The operator's: a bearer token of the cluster (a ServiceAccount's, an OIDC id token the apiserver
 * accepts), authenticated by a TokenReview, then authorised by a SubjectAccessReview of CONSOLE_ACCESS
 * for the user it names — as kube-rbac-proxy guards a metrics endpoint. `client` is the operator's own:
 * it may create both reviews (system:auth-delegator's rules, in its ClusterRole).
 */
export function clusterAuthenticator(client: KubeClient, now: () => number = Date.now): ConsoleAuthenticator {
  const judge = async (token: string): Promise<Verdict> => {
    const review = await client.authentication.createTokenReview({
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
    });
    const status = review.status;
    if (!status?.authenticated || !status.user?.username) {
      return {
        allowed: false,
        status: 401,
        reason: `the cluster does not accept this token${status?.error ? ` (${status.error})` : ""}: give a token the cluster authenticates, e.g. kubectl create token SERVICE_ACCOUNT -n NAMESPACE`,
      };
    }
    const user = status.user.username;
    const access = await client.authorization.createSubjectAccessReview({
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user,
          groups: status.user.groups ?? [],
          ...(status.user.uid ? { uid: status.user.uid } : {}),
          ...(status.user.extra ? { extra: status.user.extra } : {}),
          resourceAttributes: { ...CONSOLE_ACCESS },
        },
      },
    });
    if (!access.status?.allowed) {
      return {
        allowed: false,
        status: 403,
        reason: `${user} may not ${CONSOLE_ACCESS.verb} ${CONSOLE_ACCESS.resource}.${CONSOLE_ACCESS.group} ${CONSOLE_ACCESS.name}, which the console asks of its readers: bind the ClusterRole ${CONSOLE_VIEWER_ROLE} (the operator chart's) to ${user}`,
      };
    }
    return { allowed: true, user };
  };
  return { check: cachedVerdicts(judge, now), asks: "a bearer token of the cluster", signsInByLink: false };
}

/**
 * `navique console`'s: the key it printed at its start, compared in constant time. The console then reads
 * with the kubeconfig's identity, so that whoever holds the key sees what that identity may read, and no
 * more.
 */
export function keyAuthenticator(key: string): ConsoleAuthenticator {
  const expected = Buffer.from(digest(key), "hex");
  return {
    asks: "the key navique console printed",
    signsInByLink: true,
    check: async (token) =>
      timingSafeEqual(Buffer.from(digest(token), "hex"), expected)
        ? { allowed: true, user: "the kubeconfig's user" }
        : {
            allowed: false,
            status: 401,
            reason: "this is not the key navique console printed at its start: copy it again from its output",
          },
  };
}

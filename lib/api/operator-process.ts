/**
 * The Node.js options the operator's container runs with (its NODE_OPTIONS), measured by
 * bench/operator-scale.ts (docs/performance.md). An operator is one long-lived process whose live data
 * is small (watch caches, one pass at a time): V8's defaults, sized for throughput, held ~50 MiB more
 * than it uses — 16 MiB semi-spaces for the young generation, and a pool of worker threads per core,
 * each with its own stack and allocation arenas. 2 MiB semi-spaces and one worker keep an idle operator
 * at ~113 MiB instead of ~160; the passes stay as fast (a pass allocates little, so scavenges stay
 * cheap).
 */
export const OPERATOR_NODE_OPTIONS = "--max-semi-space-size=2 --v8-pool-size=1";

/** The user and group the operator's image runs as: not root, and no user of the host (distroless's `nonroot`). */
export const OPERATOR_UID = 65532;

/** Where the operator writes (helm's cache, its private kubeconfig files): its HOME and /tmp. */
export const OPERATOR_WRITABLE_PATHS = { home: "/home/nonroot", tmp: "/tmp" } as const;

/**
 * The operator container's resources, from bench/operator-scale.ts (docs/performance.md): ~104 MiB idle,
 * at most ~172 MiB steady with 1,000 resources, under 1 % of a core steady and a full core while it
 * works through a burst. The requests are what it holds; the memory limit leaves a burst's garbage room;
 * no CPU limit, so that a burst is slowed by nothing but the node.
 */
export const OPERATOR_RESOURCES = {
  requests: { cpu: "100m", memory: "256Mi" },
  limits: { memory: "512Mi" },
} as const;

/** How an install, upgrade or restore of a capability that this process began ended. */
export type CapabilityInstallResult = "installed" | "upgraded" | "restored" | "failed";

/**
 * Told of each install, upgrade or restore of a capability this process began, once it has ended: the
 * operator counts them in its metrics (providers/operator/operator-metrics.ts). An interface and nothing
 * more, so that the core and the front ends that pass none load nothing of how they are counted.
 */
export interface CapabilityInstallObserver {
  capabilityInstall(capability: string, result: CapabilityInstallResult): void;
}

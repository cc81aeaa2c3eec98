import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import { checkInput } from "../lib/api/validation.js";
import { LICENSE_KIND, LICENSE_NAME, LicenseSpec } from "../lib/kinds/license/schema.js";
import type { Entitlements } from "../lib/licence/entitlements.js";
import { resolveEntitlements } from "../lib/licence/resolve.js";
import { appChanged } from "./app-declarations.js";
import { clusterScoped } from "./cluster-scoped.js";
import { PropsProblems } from "./props-problems.js";

export interface NaviqueLicenseProps {
  /** The signed licence token. */
  readonly token: string;
  /** The instant the licence is judged at during synth. @default now */
  readonly now?: Date;
  /**
   * Public keys (PEM, by key id) the token is verified with at synth. @default the product's own keys.
   * It changes only what synth reports: the cluster always verifies with the product's keys.
   */
  readonly trustedKeys?: ReadonlyMap<string, string>;
}

/**
 * The License singleton for GitOps. Synth also verifies the token offline, so that a broken or expired
 * licence, and the resources it would refuse or skip, are reported before anything is committed.
 */
export class NaviqueLicense extends Construct {
  readonly entitlements: Entitlements;

  constructor(scope: Construct, id: string, props: NaviqueLicenseProps) {
    super(scope, id);
    appChanged(this);
    // The token's form, as the CRD checks it, reported at synth with every other construct's problems;
    // whether it verifies is the entitlements' business (a refused licence applies the Community defaults).
    const problems = new PropsProblems();
    problems.take(checkInput(LicenseSpec, { token: props.token }, "spec"));
    this.node.addValidation({ validate: () => problems.lines(LICENSE_KIND) });
    // A token of the wrong form is reported above; the app is then judged as Community.
    this.entitlements = resolveEntitlements(problems.problems.length === 0 ? props.token : undefined, {
      now: props.now ?? new Date(),
      ...(props.trustedKeys ? { trustedKeys: props.trustedKeys } : {}),
    });
    clusterScoped(
      new ApiObject(this, "Resource", {
        apiVersion: API_GROUP_VERSION,
        kind: LICENSE_KIND,
        metadata: { name: LICENSE_NAME },
        spec: { token: props.token },
      }),
    );
  }

  /** What the app's synth-time checks read of it (constructs/app-declarations.ts): its entitlements. */
  declaredEntitlements(): Entitlements {
    return this.entitlements;
  }
}

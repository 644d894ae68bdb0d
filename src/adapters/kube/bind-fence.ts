// The server-side bind fence: annotations that let the API server refuse a Binding from a replica that no longer holds the lease.
//
// A client-side fence (write-fence.ts) can only check before bytes leave; a process paused
// between that check and its write syscall still sends after resuming. The chart's
// ValidatingAdmissionPolicy closes that gap for binds: it admits a Binding that names this
// Lease only if the holder it names holds the Lease as the API server sees it then.

/** Annotation naming the Lease (`namespace/name`) a Binding is fenced by. */
export const fenceLeaseAnnotation = 'berth.dev/lease';
/** Annotation naming the leader identity that sent the Binding. */
export const fenceHolderAnnotation = 'berth.dev/holder';

/** The Lease and identity a replica binds under (leader election on). */
export interface BindFenceIdentity {
  leaseNamespace: string;
  leaseName: string;
  identity: string;
}

/**
 * The annotations a Binding carries under `fence` (none without one). The API server copies
 * a Binding's annotations onto the pod, so a bound pod also says which replica bound it.
 */
export function bindFenceAnnotations(fence: BindFenceIdentity | undefined): Record<string, string> {
  if (fence === undefined) return {};
  return {
    [fenceLeaseAnnotation]: `${fence.leaseNamespace}/${fence.leaseName}`,
    [fenceHolderAnnotation]: fence.identity,
  };
}

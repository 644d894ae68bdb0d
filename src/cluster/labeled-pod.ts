// What label and namespace matching reads of a pod (a PodInfo is one): kept apart so matchers need not import the whole model.

/** A pod as selectors see it: its namespace and labels. PodInfo satisfies it. */
export interface LabeledPod {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

package io.hami.framework.api;

/** The kind of object a {@link ClusterEvent} is about. */
public enum EventResource {
  /** A node. */
  NODE,
  /** A pod bound (or assumed) to a node. */
  ASSIGNED_POD,
  /** A pod waiting to be scheduled (the pending pod itself, or another one). */
  UNSCHEDULED_POD,
  /** A PersistentVolumeClaim. */
  PERSISTENT_VOLUME_CLAIM,
  /** A PersistentVolume. */
  PERSISTENT_VOLUME,
  /** A StorageClass. */
  STORAGE_CLASS,
  /** A CSINode (a node's CSI drivers and their volume limits). */
  CSI_NODE,
  /** A CSIDriver. */
  CSI_DRIVER,
  /** A Namespace. */
  NAMESPACE,
  /** A Service (its selector feeds default topology spreading). */
  SERVICE,
  /** A ReplicaSet. */
  REPLICA_SET,
  /** A StatefulSet. */
  STATEFUL_SET,
  /** A ReplicationController. */
  REPLICATION_CONTROLLER,
  /** A PodDisruptionBudget (policy/v1). */
  POD_DISRUPTION_BUDGET,
  /** A {@code scheduling.k8s.io} PodGroup. */
  POD_GROUP,
  /** Matches every resource; only for registration. */
  WILDCARD
}

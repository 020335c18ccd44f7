package io.hami.framework.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Listers of non-node objects, fed by the in-memory cluster, and their events for requeueing. */
class ClusterObjectsTest {

  /** Refuses a pod until every claim it names exists; requeued only by a claim's add. */
  static final class ClaimsExist implements FilterPlugin, EnqueueExtensions {
    private final ObjectLister<PersistentVolumeClaim> claims;

    ClaimsExist(ObjectLister<PersistentVolumeClaim> claims) {
      this.claims = claims;
    }

    @Override
    public String name() {
      return "ClaimsExist";
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
      for (Volume v : pod.getSpec().getVolumes()) {
        if (v.getPersistentVolumeClaim() != null
            && claims.get(
                    pod.getMetadata().getNamespace(), v.getPersistentVolumeClaim().getClaimName())
                == null) {
          return Status.unschedulable("claim missing");
        }
      }
      return Status.success();
    }

    @Override
    public List<ClusterEventWithHint> eventsToRegister() {
      return List.of(
          new ClusterEventWithHint(
              ClusterEvent.of(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
              (pod, oldObj, newObj) -> QueueingHint.QUEUE));
    }
  }

  private static InMemoryCluster cluster() {
    Registry registry = BuiltInPlugins.registry();
    registry.register(
        PluginRegistration.of(
            "ClaimsExist",
            handle -> new ClaimsExist(handle.lister(ObjectKind.PERSISTENT_VOLUME_CLAIM))));
    SchedulerConfiguration cfg =
        new ConfigLoader(registry)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\n"
                    + "profiles:\n- schedulerName: hami-scheduler\n  plugins:\n    multiPoint:\n"
                    // The volume plugins would also want the claim bound to a volume.
                    + "      disabled:\n      - name: VolumeBinding\n      - name: VolumeZone\n"
                    + "      - name: VolumeRestrictions\n      - name: NodeVolumeLimits\n"
                    + "      enabled:\n      - name: ClaimsExist\n",
                "test");
    return InMemoryCluster.builder(registry).config(cfg).build();
  }

  private static PersistentVolumeClaim claim(String name) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .build();
  }

  private static Pod withClaim(Pod pod, String claim) {
    return new PodBuilder(pod)
        .editSpec()
        .addNewVolume()
        .withName("v")
        .withNewPersistentVolumeClaim()
        .withClaimName(claim)
        .endPersistentVolumeClaim()
        .endVolume()
        .endSpec()
        .build();
  }

  @Test
  void aClaimAdded_isListedAndRequeuesThePodItBlocked() {
    try (InMemoryCluster c = cluster()) {
      assertThat(c.scheduler().objects().requestedKinds())
          .contains(ObjectKind.PERSISTENT_VOLUME_CLAIM);
      c.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
      c.addPod(withClaim(MakePod.named("p").obj(), "data"));
      assertThat(c.drain().bound()).isZero();

      c.putObject(claim("data"));

      // No clock advance: the add event moves the pod straight back to the active queue.
      assertThat(c.drain().bound())
          .as(() -> String.valueOf(c.outcome("default", "p")))
          .isEqualTo(1);
    }
  }

  @Test
  void listsByNamespace_followAddsAndDeletes() {
    try (InMemoryCluster c = cluster()) {
      PersistentVolumeClaim other = claim("data");
      other.getMetadata().setNamespace("team-b");
      c.putObject(claim("data"));
      c.putObject(other);
      ObjectLister<PersistentVolumeClaim> claims =
          c.scheduler().objects().lister(ObjectKind.PERSISTENT_VOLUME_CLAIM);
      assertThat(claims.list()).hasSize(2);
      assertThat(claims.list("team-b"))
          .extracting(pvc -> pvc.getMetadata().getNamespace())
          .containsExactly("team-b");
      c.deleteObject(other);
      assertThat(claims.list("team-b")).isEmpty();
      assertThat(claims.list("default")).hasSize(1);
    }
  }

  @Test
  void aClaimDeleted_isNoLongerListed() {
    try (InMemoryCluster c = cluster()) {
      c.putObject(claim("data"));
      c.putObject(claim("data"));
      c.deleteObject(claim("data"));
      c.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
      c.addPod(withClaim(MakePod.named("p").obj(), "data"));
      assertThat(c.drain().bound()).isZero();
    }
  }
}

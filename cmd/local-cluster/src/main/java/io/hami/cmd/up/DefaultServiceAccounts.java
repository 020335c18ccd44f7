package io.hami.cmd.up;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.HttpURLConnection;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives every namespace its {@code default} ServiceAccount, which the controller manager does in a
 * cluster; the playground runs none, and without the account the apiserver refuses pods.
 */
final class DefaultServiceAccounts implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DefaultServiceAccounts.class);
  static final String NAME = "default";

  private final KubernetesClient client;
  private final SharedIndexInformer<Namespace> informer;

  private DefaultServiceAccounts(KubernetesClient client, SharedIndexInformer<Namespace> informer) {
    this.client = client;
    this.informer = informer;
  }

  /** Creates the accounts of existing namespaces, then of each new one as it appears. */
  static DefaultServiceAccounts start(KubernetesClient client) throws Exception {
    SharedIndexInformer<Namespace> informer = client.namespaces().runnableInformer(0);
    DefaultServiceAccounts controller = new DefaultServiceAccounts(client, informer);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Namespace ns) {
            controller.sync(ns);
          }

          @Override
          public void onUpdate(Namespace before, Namespace ns) {}

          @Override
          public void onDelete(Namespace ns, boolean unknown) {}
        });
    try {
      informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      informer.close();
      throw e;
    }
    return controller;
  }

  private void sync(Namespace ns) {
    if (ns.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    try {
      ensure(client, ns.getMetadata().getName());
    } catch (KubernetesClientException e) {
      // A namespace being deleted refuses new objects; any other failure is reported and skipped.
      log.warn(
          "cannot create ServiceAccount {}/{}: {}",
          ns.getMetadata().getName(),
          NAME,
          e.getMessage());
    }
  }

  /** Creates {@code namespace}'s default account unless it exists. */
  static void ensure(KubernetesClient client, String namespace) {
    try {
      client
          .serviceAccounts()
          .inNamespace(namespace)
          .resource(
              new ServiceAccountBuilder().withNewMetadata().withName(NAME).endMetadata().build())
          .create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
    }
  }

  @Override
  public void close() {
    informer.close();
  }
}

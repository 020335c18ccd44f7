/**
 * The mutating admission webhook: sends GPU pods to the HAMi scheduler, fills in defaults and
 * refuses pods whose GPU requests cannot be honoured (hami-protocol §5.3, §6.8).
 *
 * <p>{@link io.hami.webhook.PodAdmission} holds the rules as a pure function from a pod to a
 * decision; {@link io.hami.webhook.AdmissionHandler} speaks {@code admission.k8s.io/v1}; {@link
 * io.hami.webhook.WebhookServer} serves it over HTTPS with certificates reloaded from disk.
 */
@NullMarked
package io.hami.webhook;

import org.jspecify.annotations.NullMarked;

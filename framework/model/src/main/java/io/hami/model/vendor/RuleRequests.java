package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;

/** A {@link RequestReader} backed by a {@link RequestRule}. */
record RuleRequests(RequestRule rule) implements RequestReader {

  @Override
  public ResourceNames resourceNames() {
    return rule.names();
  }

  @Override
  public Decoded<ContainerRequest> read(ContainerResources container) {
    return rule.derive(container);
  }
}

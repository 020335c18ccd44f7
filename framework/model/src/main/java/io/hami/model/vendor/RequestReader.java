package io.hami.model.vendor;

import io.hami.model.Decoded;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.ResourceNames;

/** Derives what a container asks of a vendor ("GenerateResourceRequests"). */
public interface RequestReader {

  /** The vendor's resource names. */
  ResourceNames resourceNames();

  /**
   * The container's request; {@link ContainerRequest#isEmpty()} when it asks for nothing, an error
   * naming the resource and value when its quantities are unusable (the reference then treats it as
   * asking for nothing).
   */
  Decoded<ContainerRequest> read(ContainerResources container);
}

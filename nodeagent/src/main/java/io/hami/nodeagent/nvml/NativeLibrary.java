package io.hami.nodeagent.nvml;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Loads the NVML shim that the build packs into the jar. */
final class NativeLibrary {
  static final String RESOURCE = "native/linux-x86_64/libhami-nvml.so";

  private static volatile boolean loaded;

  private NativeLibrary() {}

  /** Loads the shim once; throws {@link NvmlException} when it cannot be loaded. */
  static synchronized void ensureLoaded() throws NvmlException {
    if (loaded) {
      return;
    }
    try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new NvmlException(
            NvmlException.NOT_LOADED, "NVML not available: shim " + RESOURCE + " is not packaged");
      }
      Path tmp = Files.createTempFile("libhami-nvml", ".so");
      try {
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        System.load(tmp.toAbsolutePath().toString());
      } finally {
        // The mapping stays valid after the file is gone.
        Files.deleteIfExists(tmp);
      }
      loaded = true;
    } catch (IOException | UnsatisfiedLinkError e) {
      throw new NvmlException(
          NvmlException.NOT_LOADED, "NVML not available: cannot load the shim: " + e.getMessage());
    }
  }
}

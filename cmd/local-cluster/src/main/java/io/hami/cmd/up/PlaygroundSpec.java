package io.hami.cmd.up;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What {@code hami up} starts: {@code nodes} fake nodes, each with {@code gpusPerNode} GPUs of
 * {@code gpuMemoryMiB} MiB split into {@code splitCount} vGPUs, all files under {@code workDir}
 * (removed on close).
 */
public record PlaygroundSpec(
    int nodes, int gpusPerNode, long gpuMemoryMiB, String gpuModel, int splitCount, Path workDir) {
  public static final int MAX_NODES = 64;
  public static final int MAX_GPUS_PER_NODE = 16;
  public static final long MIN_GPU_MEMORY_MIB = 1024;
  public static final long MAX_GPU_MEMORY_MIB = 1 << 20;
  public static final int MAX_SPLIT_COUNT = 1024;

  /** Longest Unix socket path the kernel accepts (sun_path less its terminating NUL). */
  static final int MAX_SOCKET_PATH = 107;

  /** What the deepest socket adds below the work directory. */
  static final String DEEPEST_SOCKET =
      "/nodes/" + nodeName(MAX_NODES) + "/device-plugins/nvidia-gpu.sock";

  public PlaygroundSpec {
    requireNonNull(gpuModel);
    workDir = workDir.toAbsolutePath().normalize();
    List<String> problems =
        problems(nodes, gpusPerNode, gpuMemoryMiB, gpuModel, splitCount, workDir);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  /** The name of node {@code i}, counted from 1. */
  public static String nodeName(int i) {
    return "gpu-node-" + i;
  }

  public List<String> nodeNames() {
    List<String> out = new ArrayList<>();
    for (int i = 1; i <= nodes; i++) {
      out.add(nodeName(i));
    }
    return out;
  }

  /** Every problem with the values, each naming its flag and value; empty when they are usable. */
  public static List<String> problems(
      int nodes,
      int gpusPerNode,
      long gpuMemoryMiB,
      String gpuModel,
      int splitCount,
      Path workDir) {
    List<String> p = new ArrayList<>();
    if (nodes < 1 || nodes > MAX_NODES) {
      p.add("--nodes: " + nodes + " is not in 1.." + MAX_NODES);
    }
    if (gpusPerNode < 1 || gpusPerNode > MAX_GPUS_PER_NODE) {
      p.add("--gpus-per-node: " + gpusPerNode + " is not in 1.." + MAX_GPUS_PER_NODE);
    }
    if (gpuMemoryMiB < MIN_GPU_MEMORY_MIB || gpuMemoryMiB > MAX_GPU_MEMORY_MIB) {
      p.add(
          "--gpu-memory: "
              + gpuMemoryMiB
              + " MiB is not in "
              + MIN_GPU_MEMORY_MIB
              + ".."
              + MAX_GPU_MEMORY_MIB);
    }
    if (gpuModel.isBlank()
        || gpuModel.length() > 96
        || gpuModel.chars().anyMatch(Character::isISOControl)) {
      p.add("--gpu-model: \"" + gpuModel + "\" is not a GPU name of 1..96 printable characters");
    }
    if (splitCount < 1 || splitCount > MAX_SPLIT_COUNT) {
      p.add("--split-count: " + splitCount + " is not in 1.." + MAX_SPLIT_COUNT);
    }
    Path dir = workDir.toAbsolutePath().normalize();
    int longest = dir.toString().length() + DEEPEST_SOCKET.length();
    if (longest > MAX_SOCKET_PATH) {
      p.add(
          "--work-dir: "
              + dir
              + " is too long: the device-plugin sockets under it would be "
              + longest
              + " characters, Unix sockets allow "
              + MAX_SOCKET_PATH
              + "; give a shorter path");
    }
    if (Files.exists(dir) && !emptyDirectory(dir)) {
      p.add(
          "--work-dir: "
              + dir
              + " exists and is not an empty directory; give a new or empty one"
              + " (it is removed when the playground stops)");
    }
    return p;
  }

  private static boolean emptyDirectory(Path dir) {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }
}

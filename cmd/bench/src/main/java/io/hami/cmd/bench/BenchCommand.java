package io.hami.cmd.bench;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code hami bench}: groups the benchmarks. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Benchmarks that print their figures and end with a RESULT line.",
    subcommands = {SchedulerBenchCommand.class, ClusterBenchCommand.class})
public final class BenchCommand implements Callable<Integer> {
  @SuppressWarnings("NullAway.Init") // picocli injects it before call().
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return 2;
  }
}

package io.hami.cmd.explain;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code hami explain}: the parent of {@code hami explain pod}. */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = "Explains scheduling decisions from what the scheduler recorded in the API.",
    subcommands = {ExplainPodCommand.class})
public final class ExplainCommand implements Callable<Integer> {
  @SuppressWarnings("NullAway.Init") // picocli injects it before call().
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExplainPodCommand.EXIT_USAGE;
  }
}

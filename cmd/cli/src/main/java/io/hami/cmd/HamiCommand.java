package io.hami.cmd;

import io.hami.cmd.bench.BenchCommand;
import io.hami.cmd.explain.ExplainCommand;
import io.hami.cmd.scheduler.SchedulerCommand;
import io.hami.cmd.simulate.SimulateCommand;
import io.hami.cmd.up.UpCommand;
import io.hami.cmd.webhook.WebhookCommand;
import io.hami.nodeagent.cli.NodeAgentCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code hami} executable. Each component of the system is a subcommand; adding one means
 * adding its class to {@code subcommands} below and nothing else.
 */
@Command(
    name = "hami",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "GPU sharing for Kubernetes: scheduler, node agent, webhook and simulator.",
    subcommands = {
      CommandLine.HelpCommand.class,
      SchedulerCommand.class,
      BenchCommand.class,
      NodeAgentCommand.class,
      SimulateCommand.class,
      WebhookCommand.class,
      UpCommand.class,
      ExplainCommand.class,
    })
public final class HamiCommand implements Callable<Integer> {

  /** Exit code for a bad flag or configuration value. */
  public static final int EXIT_USAGE = 2;

  @SuppressWarnings("NullAway.Init") // picocli injects it before call().
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return EXIT_USAGE;
  }

  /** Builds the command line with the project's exit-code conventions. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new HamiCommand());
    cl.setExitCodeExceptionMapper(t -> EXIT_USAGE);
    return cl;
  }

  public static void main(String[] args) {
    atLeastTwoCommonPoolWorkers();
    System.exit(commandLine().execute(args));
  }

  static final String COMMON_POOL_PARALLELISM =
      "java.util.concurrent.ForkJoinPool.common.parallelism";

  /**
   * On one or two CPUs the common pool gets a single worker, and CompletableFuture then runs each
   * async completion on a new thread: the HTTP client's responses started about a hundred threads a
   * second in a loaded scheduler. Two workers keep them on pooled threads. Must run before anything
   * touches the pool; an explicit setting is left alone.
   */
  static void atLeastTwoCommonPoolWorkers() {
    if (System.getProperty(COMMON_POOL_PARALLELISM) == null
        && Runtime.getRuntime().availableProcessors() < 3) {
      System.setProperty(COMMON_POOL_PARALLELISM, "2");
    }
  }
}

package io.hami.cmd.cluster.kubelet;

import io.hami.nodeagent.cli.NodeAgentCommand;
import picocli.CommandLine;

/** Runs {@code node-agent} alone, as the launcher would. */
public final class AgentMain {
  public static void main(String[] args) {
    System.exit(new CommandLine(new NodeAgentCommand()).execute(args));
  }
}

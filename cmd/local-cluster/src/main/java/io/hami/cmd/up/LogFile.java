package io.hami.cmd.up;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * Sends the components' logs to a file once the playground runs, so the terminal keeps what {@code
 * hami up} prints and the commands typed next to it.
 */
final class LogFile {
  private LogFile() {}

  /** Moves every log line to {@code file}; empty when logging is not logback (nothing changes). */
  static Optional<Path> redirectTo(Path file) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return Optional.empty();
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> appender = new FileAppender<>();
    appender.setContext(context);
    appender.setName("hami-up-file");
    appender.setFile(file.toString());
    appender.setAppend(true);
    appender.setEncoder(encoder);
    appender.start();
    if (!appender.isStarted()) {
      return Optional.empty();
    }
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    root.addAppender(appender);
    return Optional.of(file);
  }
}

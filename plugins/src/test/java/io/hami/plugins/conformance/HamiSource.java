package io.hami.plugins.conformance;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.AnnotationConsumer;

/** Supplies every recorded call of one HAMi function as a {@link HamiRecords.Record} argument. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ArgumentsSource(HamiSource.Provider.class)
@interface HamiSource {
  /** The HAMi function, for example {@code device.DecodeNodeDevices}. */
  String value();

  /** Reads the records named by the annotation. */
  final class Provider
      implements org.junit.jupiter.params.provider.ArgumentsProvider,
          AnnotationConsumer<HamiSource> {
    private String fn = "";

    @Override
    public void accept(HamiSource source) {
      fn = source.value();
    }

    @Override
    public Stream<? extends Arguments> provideArguments(ExtensionContext context) {
      return HamiRecords.of(fn).stream().map(Arguments::of);
    }
  }
}

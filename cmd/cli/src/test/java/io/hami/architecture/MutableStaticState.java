package io.hami.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The condition behind the no-static-mutable-state rule. A static field must be final, and its
 * declared type must not be a mutable collection.
 *
 * <p>ArchUnit sees the declared type of a field, not the object stored in it, so the check is on
 * the declared type, and it errs on the safe side: {@code static final Map<K, V> M = Map.of(..)} is
 * reported although the map happens to be immutable, because nothing stops the next change from
 * putting a {@code HashMap} there. Declaring the Guava immutable type ({@code ImmutableMap}, {@code
 * ImmutableList}, ...) states the immutability in the type and passes. What is not caught: arrays,
 * and mutable objects of other types (an {@code AtomicInteger} counter, a cache); those are rare
 * enough to leave to review.
 */
final class MutableStaticState {
  private MutableStaticState() {}

  /** Guava's mutable collection types that are neither a Collection nor a Map. */
  private static final List<String> GUAVA_MUTABLE_TYPES =
      List.of(
          "com.google.common.collect.Multimap",
          "com.google.common.collect.Table",
          "com.google.common.collect.RangeMap",
          "com.google.common.collect.RangeSet");

  static ArchCondition<JavaField> notHoldMutableState() {
    return new ArchCondition<>("be final and not of a mutable collection type") {
      @Override
      public void check(JavaField f, ConditionEvents events) {
        if (!f.getModifiers().contains(JavaModifier.FINAL)) {
          events.add(
              SimpleConditionEvent.violated(
                  f, f.getFullName() + " is static and not final " + f.getSourceCodeLocation()));
        } else if (isMutableCollection(f.getRawType())) {
          events.add(
              SimpleConditionEvent.violated(
                  f,
                  f.getFullName()
                      + " is a static "
                      + f.getRawType().getSimpleName()
                      + "; declare an immutable type (ImmutableMap, ImmutableList, ...) "
                      + f.getSourceCodeLocation()));
        }
      }
    };
  }

  static boolean isMutableCollection(JavaClass type) {
    if (type.getPackageName().equals("com.google.common.collect")
        && type.getSimpleName().startsWith("Immutable")) {
      return false;
    }
    if (type.isAssignableTo(Collection.class) || type.isAssignableTo(Map.class)) {
      return true;
    }
    return GUAVA_MUTABLE_TYPES.stream().anyMatch(type::isAssignableTo);
  }
}

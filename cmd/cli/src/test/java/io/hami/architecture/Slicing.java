package io.hami.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/** Slice assignments that {@code slices().matching(..)} cannot express. */
final class Slicing {
  private Slicing() {}

  /**
   * One slice per package directly under {@code root} (with its subpackages), plus one for {@code
   * root} itself. {@code matching("root.(*)..")} would leave out the classes in {@code root} and so
   * miss a cycle between it and a subpackage.
   */
  static SliceAssignment packagesDirectlyUnder(String root) {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        String p = c.getPackageName();
        if (p.equals(root)) {
          return SliceIdentifier.of(root);
        }
        if (!p.startsWith(root + ".")) {
          return SliceIdentifier.ignore();
        }
        String rest = p.substring(root.length() + 1);
        int dot = rest.indexOf('.');
        return SliceIdentifier.of(root + "." + (dot < 0 ? rest : rest.substring(0, dot)));
      }

      @Override
      public String getDescription() {
        return root + " and each package directly under it";
      }
    };
  }
}

package io.hami.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

/**
 * The layering of the modules, checked on the main classes of all of them (tests are not imported).
 * The intended direction of dependencies: framework api <- framework runtime <- plugins <-
 * commands, and model <- plugins, node agent, commands. The framework knows nothing of GPUs or the
 * wire model.
 */
@AnalyzeClasses(packages = "io.hami", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  /** The packages of the framework runtime module (the scheduler, its cache, queue and binder). */
  static final String[] RUNTIME = {
    "io.hami.framework.runtime..",
    "io.hami.framework.config..",
    "io.hami.framework.cache..",
    "io.hami.framework.queue..",
    "io.hami.framework.bind..",
    "io.hami.framework.plugins.."
  };

  /** Where the test fixtures belong: the framework testing module. */
  static final String FIXTURES = "io.hami.framework.testing..";

  /** Classes protoc and the gRPC plugin generate for the kubelet device plugin API. */
  static final String GENERATED = "io.hami.nodeagent.deviceplugin.v1beta1..";

  /**
   * Holds a "loaded" flag for the NVML shim: System.load is once per class loader, so the state it
   * mirrors is process-wide already.
   */
  static final String NATIVE_LIBRARY = "io.hami.nodeagent.nvml.NativeLibrary";

  // Layering.

  @ArchTest
  static final ArchRule frameworkDependsOnNoDomainModule =
      noClasses()
          .that()
          .resideInAPackage("io.hami.framework..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.hami.model..",
              "io.hami.plugins..",
              "io.hami.nodeagent..",
              "io.hami.cmd..",
              "io.hami.webhook..",
              "io.hami.sim..")
          .because(
              "the framework is a generic scheduler; GPU knowledge lives in model and plugins");

  @ArchTest
  static final ArchRule kubeHelpersDependOnNoOtherModule =
      noClasses()
          .that()
          .resideInAPackage("io.hami.kube..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.hami.framework..",
              "io.hami.model..",
              "io.hami.plugins..",
              "io.hami.nodeagent..",
              "io.hami.cmd..",
              "io.hami.webhook..",
              "io.hami.sim..")
          .because("every module builds its clients and patches with them");

  @ArchTest
  static final ArchRule frameworkApiDependsOnNoRuntime =
      noClasses()
          .that()
          .resideInAPackage("io.hami.framework.api..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(concat(RUNTIME, FIXTURES))
          .because("plugins compile against the API alone");

  @ArchTest
  static final ArchRule modelDependsOnNoUpperLayer =
      noClasses()
          .that()
          .resideInAPackage("io.hami.model..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              concat(
                  RUNTIME,
                  FIXTURES,
                  "io.hami.plugins..",
                  "io.hami.nodeagent..",
                  "io.hami.cmd..",
                  "io.hami.webhook..",
                  "io.hami.sim.."))
          .because("the wire model is shared by the scheduler side and the node agent");

  @ArchTest
  static final ArchRule pluginsDependOnNoAgentOrCommand =
      noClasses()
          .that()
          .resideInAPackage("io.hami.plugins..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.hami.nodeagent..", "io.hami.cmd..", "io.hami.webhook..", "io.hami.sim..")
          .because("plugins run inside the scheduler; commands assemble them, not the reverse");

  @ArchTest
  static final ArchRule nodeAgentDependsOnNoSchedulerSide =
      noClasses()
          .that()
          .resideInAPackage("io.hami.nodeagent..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              concat(
                  RUNTIME,
                  FIXTURES,
                  "io.hami.plugins..",
                  "io.hami.cmd..",
                  "io.hami.webhook..",
                  "io.hami.sim.."))
          .because("the node agent talks to the scheduler only through the wire model");

  // Cycles.

  @ArchTest
  static final ArchRule topLevelPackagesAreFreeOfCycles =
      slices().matching("io.hami.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule pluginPackagesAreFreeOfCycles =
      slices()
          .assignedFrom(Slicing.packagesDirectlyUnder("io.hami.plugins"))
          .should()
          .beFreeOfCycles();

  @ArchTest
  static final ArchRule frameworkPackagesAreFreeOfCycles =
      slices()
          .assignedFrom(Slicing.packagesDirectlyUnder("io.hami.framework"))
          .should()
          .beFreeOfCycles();

  // Code hygiene.

  /** The scheduler's own code keeps its steps small: a longer list wants a value object. */
  @ArchTest
  static final ArchRule frameworkMethodsTakeAtMostSixParameters =
      methods()
          .that()
          .areDeclaredInClassesThat()
          .resideInAPackage("io.hami.framework..")
          .and()
          .doNotHaveModifier(JavaModifier.SYNTHETIC)
          .should(haveAtMostParameters(6))
          .because("kube-scheduler's cycle steps take a state, a pod and a node; so do ours");

  @ArchTest
  static final ArchRule fixturesLiveInTheTestingModule =
      classes()
          .that()
          .resideInAPackage("..testing..")
          .should()
          .resideInAPackage(FIXTURES)
          .because(
              "test fixtures ship only in test scope: the framework testing module or a test-jar");

  /**
   * Fakes in main code are features: the fake NVML backend for GPU-less nodes and the playground's
   * fake nodes and kubelet ({@code hami up}, the end-to-end harness). Nowhere else.
   */
  @ArchTest
  static final ArchRule fakesOnlyWhereTheyAreAFeature =
      classes()
          .that()
          .haveSimpleNameStartingWith("Fake")
          .should()
          .resideInAnyPackage(FIXTURES, "io.hami.nodeagent.nvml..", "io.hami.cmd.cluster..")
          .because("a fake elsewhere in main code is a test double shipped to production");

  @ArchTest
  static final ArchRule noStaticMutableState =
      fields()
          .that()
          .areStatic()
          .and()
          .doNotHaveModifier(JavaModifier.SYNTHETIC)
          .and()
          .areDeclaredInClassesThat()
          .resideOutsideOfPackage(GENERATED)
          .and()
          .areNotDeclaredIn(NATIVE_LIBRARY)
          .should(MutableStaticState.notHoldMutableState())
          .because(
              "state belongs to instances that are passed in; process-wide registries leak"
                  + " between schedulers and tests");

  private static ArchCondition<JavaMethod> haveAtMostParameters(int max) {
    return new ArchCondition<>("take at most " + max + " parameters") {
      @Override
      public void check(JavaMethod method, ConditionEvents events) {
        int n = method.getRawParameterTypes().size();
        if (n > max) {
          events.add(
              SimpleConditionEvent.violated(
                  method, method.getFullName() + " takes " + n + " parameters"));
        }
      }
    };
  }

  private static String[] concat(String[] first, String... rest) {
    String[] out = new String[first.length + rest.length];
    System.arraycopy(first, 0, out, 0, first.length);
    System.arraycopy(rest, 0, out, first.length, rest.length);
    return out;
  }
}

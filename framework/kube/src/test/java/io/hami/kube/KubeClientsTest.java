package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.same;
import static org.mockito.Mockito.RETURNS_SELF;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

import io.fabric8.kubernetes.api.model.AuthProviderConfig;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KubeClientsTest {

  private static Config config(UnaryOperator<ConfigBuilder> edit) {
    return edit.apply(new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:6443"))
        .build();
  }

  private static Config autoToken() {
    Config c = config(b -> b);
    c.setAutoOAuthToken("sa-token");
    return c;
  }

  static Stream<Arguments> configs() {
    return Stream.of(
        Arguments.of(
            "client certificate",
            config(b -> b.withClientCertData("Y2VydA==").withClientKeyData("a2V5")),
            false),
        Arguments.of("no credentials", config(b -> b), false),
        Arguments.of("token", config(b -> b.withOauthToken("t")), true),
        Arguments.of("token provider", config(b -> b.withOauthTokenProvider(() -> "t")), true),
        Arguments.of("basic auth", config(b -> b.withUsername("u").withPassword("p")), true),
        Arguments.of(
            "auth provider",
            config(b -> b.withAuthProvider(new AuthProviderConfig(null, "oidc"))),
            true),
        Arguments.of("service-account, token-file or exec token", autoToken(), true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configs")
  void tokenRefreshStaysOnlyWhereARefreshCanFindAToken(
      String name, Config config, boolean refreshes) {
    Interceptor mine = new Interceptor() {};
    HttpClient.Builder http = mock(HttpClient.Builder.class, RETURNS_SELF);

    KubeClients.adjustment(config, b -> b.addOrReplaceInterceptor("mine", mine)).accept(http);

    assertThat(KubeClients.hasTokenSource(config)).isEqualTo(refreshes);
    verify(http, refreshes ? never() : times(1))
        .addOrReplaceInterceptor(eq(TokenRefreshInterceptor.NAME), any());
    verify(http).addOrReplaceInterceptor(eq("mine"), same(mine));
  }
}

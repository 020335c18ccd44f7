package io.hami.framework.local;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * Field-by-field copies of model objects, so that the in-memory API server can hand out a new
 * version of a pod (new metadata, spec or status) without deep-copying its containers, the way a
 * watch delivers a new object per version. The copies share every nested object they do not
 * replace; nothing here mutates shared parts.
 */
final class ShallowCopy {
  private static final ClassValue<Field[]> FIELDS =
      new ClassValue<>() {
        @Override
        protected Field[] computeValue(Class<?> type) {
          List<Field> out = new ArrayList<>();
          for (Field f : type.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
              f.setAccessible(true);
              out.add(f);
            }
          }
          return out.toArray(Field[]::new);
        }
      };

  private ShallowCopy() {}

  @SuppressWarnings("unchecked")
  static <T> T of(T source) {
    try {
      Constructor<?> c = source.getClass().getDeclaredConstructor();
      T copy = (T) c.newInstance();
      for (Field f : FIELDS.get(source.getClass())) {
        f.set(copy, f.get(source));
      }
      return copy;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot copy " + source.getClass().getName(), e);
    }
  }
}

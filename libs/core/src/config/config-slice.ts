import { EnvironmentVariables } from './config.schema';

/**
 * One lib's settings: the environment variables it reads (a class-validator class, one property
 * per variable, so a failure names the variable), their defaults, the rules across variables and
 * what the lib receives. The lib declares it in its `<lib>.config.ts`; core reads the environment
 * and validates every slice declared in the process once, at boot, with its own variables
 * (`loadConfig`), and the lib reads its part with `config.slice(SLICE)`.
 */
export interface ConfigSliceDefinition<V extends object, T> {
  /** Shown when the slice is asked for but was never declared in this process. */
  name: string;
  variables: new () => V;
  defaults: { [K in keyof V & string]-?: string | undefined };
  /** Rules across variables, core's among them; each problem names its variable, never a value. */
  check?: (vars: V, core: EnvironmentVariables) => string[];
  build: (vars: V, core: EnvironmentVariables) => T;
}

export interface ConfigSlice<T> {
  readonly name: string;
  readonly variables: new () => object;
  readonly defaults: Readonly<Record<string, string | undefined>>;
  readonly check: (vars: object, core: EnvironmentVariables) => string[];
  readonly build: (vars: object, core: EnvironmentVariables) => T;
}

const declared: ConfigSlice<unknown>[] = [];

/**
 * Declares a lib's slice. Called at the top level of the lib's `<lib>.config.ts`, which the lib's
 * module imports, so every slice of a process is declared before its `main` loads the config.
 */
export function defineConfigSlice<V extends object, T>(definition: ConfigSliceDefinition<V, T>): ConfigSlice<T> {
  const names = Object.keys(definition.defaults);
  for (const other of declared) {
    const clash = names.find((n) => n in other.defaults);
    if (clash) throw new Error(`${clash} is declared by two config slices (${other.name}, ${definition.name})`);
  }
  const slice: ConfigSlice<T> = {
    name: definition.name,
    variables: definition.variables,
    defaults: definition.defaults,
    check: (vars, core) => definition.check?.(vars as V, core) ?? [],
    build: (vars, core) => definition.build(vars as V, core),
  };
  declared.push(slice);
  return slice;
}

/** Every slice declared in this process so far. */
export function declaredConfigSlices(): readonly ConfigSlice<unknown>[] {
  return declared;
}

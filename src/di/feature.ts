import { ContainerModule, type ContainerModuleLoadOptions, type Newable, type ServiceIdentifier } from 'inversify';
import type { z } from 'zod';
import type { ExecutableTool } from '../tool/contract';
import { type ConfigSection, type ConfigSectionInput, defineConfigSection } from './configSection';
import { type AgentToolContribution, type AgentToolContributionOptions, registerAgentToolService } from './toolContribution';

export type ScopeBindings = (options: ContainerModuleLoadOptions) => void;

export interface FeatureOptions {
  /** Ids of features this one needs in the same App (it uses their services through their contract files). */
  readonly requires?: readonly string[];
}

/**
 * A unit that extends toolhost: App-scope bindings, Agent-scope bindings (loaded into every
 * agent), tools and config sections. Features only add bindings; they never edit the host. An
 * App is built from exactly the features it is given, so a test can build one with a single tool.
 * `TConfig` is the config input the feature's sections accept (it grows with `contributeConfig`).
 */
export class Feature<TConfig extends object = object> {
  /** Type only (never set): the config input of this feature's sections, for `FeatureConfigInput`. */
  declare readonly configInput?: TConfig;
  private readonly appBindings: ScopeBindings[] = [];
  private readonly agentBindings: ScopeBindings[] = [];
  private readonly agentStartupIds: ServiceIdentifier<unknown>[] = [];
  private readonly toolList: AgentToolContribution[] = [];
  private readonly appServiceIds: ServiceIdentifier<unknown>[] = [];
  private readonly sectionList: ConfigSection[] = [];
  private appModuleCache?: ContainerModule;
  private agentModuleCache?: ContainerModule;

  /** Ids of the features this one needs in the same App; createApp and addFeature check them. */
  readonly requires: readonly string[];

  constructor(
    readonly id: string,
    options: FeatureOptions = {},
  ) {
    if (id.trim() === '') throw new Error('A feature needs a non-empty id.');
    this.requires = Object.freeze([...(options.requires ?? [])]);
  }

  /** Adds a tool: a contribution from registerAgentToolService, or the same arguments. */
  contributeTool(contribution: AgentToolContribution): this;
  contributeTool<T extends ExecutableTool<never>>(id: ServiceIdentifier<T>, toolClass: Newable<T>, options: AgentToolContributionOptions): this;
  contributeTool<T extends ExecutableTool<never>>(
    first: AgentToolContribution | ServiceIdentifier<T>,
    toolClass?: Newable<T>,
    options?: AgentToolContributionOptions,
  ): this {
    this.assertOpen();
    const contribution =
      toolClass && options ? registerAgentToolService(first as ServiceIdentifier<T>, toolClass, options) : (first as AgentToolContribution);
    this.toolList.push(contribution);
    return this;
  }

  /**
   * Adds a top-level config section (a handle from defineConfigSection, or its key and schema).
   * The App validates it with the rest of toolhost.json; services read it with
   * `IConfigService.section(handle)`.
   */
  contributeConfig<C extends ConfigSection>(section: C): Feature<TConfig & ConfigSectionInput<C>>;
  contributeConfig<K extends string, S extends z.ZodType>(key: K, schema: S): Feature<TConfig & ConfigSectionInput<ConfigSection<K, S>>>;
  contributeConfig(first: ConfigSection | string, schema?: z.ZodType): Feature<object> {
    this.assertOpen();
    const section = typeof first === 'string' ? defineConfigSection(first, schema!) : first;
    if (this.sectionList.some((s) => s.key === section.key)) throw new Error(`Feature "${this.id}" contributes config section "${section.key}" twice.`);
    this.sectionList.push(section);
    return this;
  }

  /** Bindings loaded once into the App container. List the App service ids it exposes. */
  bindApp(bindings: ScopeBindings, exposes: readonly ServiceIdentifier<unknown>[] = []): this {
    this.assertOpen();
    this.appBindings.push(bindings);
    this.appServiceIds.push(...exposes);
    return this;
  }

  /** Bindings loaded into every Agent container. */
  bindAgent(bindings: ScopeBindings): this {
    this.assertOpen();
    this.agentBindings.push(bindings);
    return this;
  }

  /**
   * Agent-scope services every agent constructs as soon as it is created, in this order (after the
   * core's): services that wire hooks, guards or events, which nothing else would construct. A
   * list, not bindings, so an agent pays nothing per id before resolving it.
   */
  startWithAgent(...ids: ServiceIdentifier<unknown>[]): this {
    this.assertOpen();
    this.agentStartupIds.push(...ids);
    return this;
  }

  get tools(): readonly AgentToolContribution[] {
    return this.toolList;
  }

  get configSections(): readonly ConfigSection[] {
    return this.sectionList;
  }

  /** The ids of startWithAgent, in order. */
  get agentStartup(): readonly ServiceIdentifier<unknown>[] {
    return this.agentStartupIds;
  }

  /** App service ids this feature exposes; the scope tests resolve each from an App alone. */
  get appServices(): readonly ServiceIdentifier<unknown>[] {
    return this.appServiceIds;
  }

  get appModule(): ContainerModule | undefined {
    if (this.appBindings.length === 0) return undefined;
    this.appModuleCache ??= new ContainerModule((options) => this.appBindings.forEach((bind) => bind(options)));
    return this.appModuleCache;
  }

  get agentModule(): ContainerModule | undefined {
    if (this.agentBindings.length === 0) return undefined;
    this.agentModuleCache ??= new ContainerModule((options) => this.agentBindings.forEach((bind) => bind(options)));
    return this.agentModuleCache;
  }

  private assertOpen(): void {
    if (this.appModuleCache || this.agentModuleCache) {
      throw new Error(`Feature "${this.id}" is already in use; add its tools and bindings before creating an App with it.`);
    }
  }
}

/** The config input a feature's sections accept. */
export type FeatureConfigInput<F> = F extends { readonly configInput?: infer C } ? C : never;

export function defineFeature(id: string, setup: (feature: Feature) => void): Feature {
  const feature = new Feature(id);
  setup(feature);
  return feature;
}

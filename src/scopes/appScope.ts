import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';
import { IConfigService, IInitialConfig, IInitialConfigSchema } from '../services/config/config';
import { type AppEnvironment, IAppEnvironment } from '../services/environment/environment';
import { parseConfig } from '../services/config/configLoader';
import { type ComposedConfigSchema, composeConfigSchema, type ToolhostConfigInput } from '../services/config/configSchema';
import { IBuiltinToolAssemblyService } from '../services/toolAssembly/builtinToolAssembly';
import { Agent, type AgentHost, type CreateAgentOptions } from './agentScope';
import { IAgentFactory } from '../services/agentFactory/agentFactory';
import { CORE_APP_SERVICES, coreAppModule } from './coreModules';
import { type BuiltinConfigInput, builtinFeatures } from './builtinFeatures';
import type { Feature } from '../di/feature';
import { IAgentToolContribution } from '../di/toolContribution';

export interface CreateAppOptions {
  /** The features to build the App from; default: every builtin feature. Tests pass exactly what they need. */
  readonly features?: readonly Feature[];
  /**
   * Configuration: raw (validated here against the core and the features' sections, ConfigError
   * on bad input) or already parsed. The builtin features' sections are typed.
   */
  readonly config?: AppConfigInput;
  /** Names the configuration in error messages (e.g. the file it came from); default "configuration". */
  readonly configSource?: string;
  /** Environment variables for feature flags (default: process.env). */
  readonly env?: AppEnvironment;
  /** Rebinds services before anything is resolved (tests, hosts). */
  readonly overrides?: (container: Container) => void;
}

/** Configuration an App accepts: the core sections and the builtin features' typed, others by key. */
export type AppConfigInput = ToolhostConfigInput & BuiltinConfigInput;

/** The root config schema of an App built from `features`; builtin sections it lacks are named in errors. */
export function configSchemaFor(features: readonly Feature[]): ComposedConfigSchema {
  const loaded = new Set(features.map((f) => f.id));
  const absent = new Map<string, string>();
  for (const builtin of builtinFeatures()) {
    if (!loaded.has(builtin.id)) for (const section of builtin.configSections) absent.set(section.key, builtin.id);
  }
  return composeConfigSchema(
    features.flatMap((f) => f.configSections.map((section) => ({ section, owner: f.id }))),
    absent,
  );
}

/** Binds a feature's tool contributions into the App's contribution collection. */
function contributionModule(feature: Feature): ContainerModule {
  return new ContainerModule(({ bind }) => {
    for (const tool of feature.tools) bind(IAgentToolContribution).toConstantValue(tool);
  });
}

/**
 * The App scope: one inversify container per host process with the configuration, the tool
 * contributions and everything features bind at App level. Agents are child scopes.
 */
export class App implements AgentHost, IAgentFactory {
  readonly container: Container;
  private readonly featureList: Feature[] = [];
  private readonly featureModules = new Map<string, ContainerModule>();
  private readonly agentList: Agent[] = [];
  private nextAgent = 1;
  private disposed = false;

  constructor(options: CreateAppOptions = {}) {
    const features = options.features ?? builtinFeatures();
    // The feature set is checked before anything is built from it.
    features.forEach((feature, index) => this.assertNewFeature(feature, features.slice(0, index)));
    for (const feature of features) this.assertRequirements(feature, features);
    const schema = configSchemaFor(features);
    const config = parseConfig(options.config, options.configSource, schema);
    this.container = new Container();
    this.container.bind(IInitialConfig).toConstantValue(config);
    this.container.bind(IInitialConfigSchema).toConstantValue(schema);
    this.container.bind(IAppEnvironment).toConstantValue({ ...(options.env ?? process.env) });
    this.container.bind(IAgentFactory).toConstantValue(this);
    this.container.load(coreAppModule);
    for (const feature of features) {
      this.featureList.push(feature);
      if (feature.appModule) this.container.load(feature.appModule);
      const tools = contributionModule(feature);
      this.featureModules.set(feature.id, tools);
      this.container.load(tools);
    }
    options.overrides?.(this.container);
  }

  get<T>(id: ServiceIdentifier<T>): T {
    return this.container.get(id);
  }

  get config(): IConfigService {
    return this.get(IConfigService);
  }

  get features(): readonly Feature[] {
    return this.featureList;
  }

  get agents(): readonly Agent[] {
    return this.agentList;
  }

  /** App-scope service ids of the core and of every feature. */
  get appServices(): readonly ServiceIdentifier<unknown>[] {
    return [...CORE_APP_SERVICES, ...this.featureList.flatMap((f) => f.appServices)];
  }

  createAgent(options: CreateAgentOptions = {}): Agent {
    if (this.disposed) throw new Error('The App has been disposed.');
    const id = options.id ?? `agent-${this.nextAgent++}`;
    if (this.agentList.some((a) => a.id === id)) throw new Error(`An agent with id "${id}" already exists.`);
    const agent = new Agent(this, id, options);
    this.agentList.push(agent);
    return agent;
  }

  /** Adds a feature to the running App; every agent gets its bindings and recomputes its tools. */
  addFeature(feature: Feature): void {
    this.assertNewFeature(feature);
    this.assertRequirements(feature, [...this.featureList, feature]);
    // Validates the new sections' place first: a clash leaves the App as it was.
    const schema = configSchemaFor([...this.featureList, feature]);
    this.featureList.push(feature);
    this.config.setSchema(schema);
    if (feature.appModule) this.container.load(feature.appModule);
    for (const agent of this.agentList) agent.loadFeature(feature);
    // Not bound into the multi-injected collection: adding to it after resolution hits inversify's plan cache.
    this.get(IBuiltinToolAssemblyService).add(feature.tools);
  }

  /**
   * Removes a feature: its tools leave every agent's active set, then its bindings go, with their
   * disposers run (they may be asynchronous). Refused while another feature requires it.
   */
  async removeFeature(id: string): Promise<void> {
    const index = this.featureList.findIndex((f) => f.id === id);
    if (index < 0) throw new Error(`No feature "${id}" to remove.`);
    const dependent = this.featureList.find((f) => f.requires.includes(id));
    if (dependent) throw new Error(`Feature "${id}" is required by feature "${dependent.id}"; remove "${dependent.id}" first.`);
    const [feature] = this.featureList.splice(index, 1) as [Feature];
    this.get(IBuiltinToolAssemblyService).remove(feature.tools);
    await Promise.all(this.agentList.map((agent) => agent.unloadFeature(feature)));
    const tools = this.featureModules.get(id);
    if (tools) {
      this.featureModules.delete(id);
      await this.container.unloadAsync(tools);
    }
    if (feature.appModule) await this.container.unloadAsync(feature.appModule);
    this.config.setSchema(configSchemaFor(this.featureList));
  }

  /** @internal */
  forget(agent: Agent): void {
    const index = this.agentList.indexOf(agent);
    if (index >= 0) this.agentList.splice(index, 1);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await Promise.all([...this.agentList].map((agent) => agent.dispose()));
    await this.container.unbindAllAsync();
  }

  private assertRequirements(feature: Feature, features: readonly Feature[]): void {
    for (const required of feature.requires) {
      if (!features.some((f) => f.id === required)) {
        throw new Error(`Feature "${feature.id}" requires feature "${required}"; create the App with both (builtinFeatures() has every builtin one).`);
      }
    }
  }

  private assertNewFeature(feature: Feature, existing: readonly Feature[] = this.featureList): void {
    if (existing.some((f) => f.id === feature.id)) throw new Error(`Feature "${feature.id}" is already part of this App.`);
  }
}

/** Creates an App scope from the given features (default: every builtin feature). */
export function createApp(options: CreateAppOptions = {}): App {
  return new App(options);
}

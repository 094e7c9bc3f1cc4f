import { loadConfig } from '../../../services/platform/config';
import { CATALOG } from '../../../services/platform/service-catalog';
import { SERVICE_MANIFESTS } from '../../../services/manifests';

/** The services' manifests against the catalog (how a service starts against its manifest: test/common/service-manifest.test.ts). */
describe('the services and the catalog', () => {
  it('declare one manifest per catalog entry, in the catalog order, each for its own entry', () => {
    expect(SERVICE_MANIFESTS.map((manifest) => manifest.service)).toEqual(CATALOG);
  });

  it('name distinct ports, address variables, schemas and gRPC services', () => {
    for (const field of ['name', 'defaultGrpcPort', 'addressVariable', 'schema', 'grpcService'] as const) {
      const values = CATALOG.map((entry) => entry[field]);
      expect({ field, values: new Set(values).size }).toEqual({ field, values: values.length });
    }
  });

  it.each(SERVICE_MANIFESTS.map((manifest) => [manifest.service.name, manifest] as const))(
    '%s implements the gRPC service its catalog entry names, and listens on its port by default',
    (_name, manifest) => {
      const paths = Object.values(manifest.grpc).map((method) => method.path);
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) expect(path).toMatch(new RegExp(`^/${manifest.service.grpcService.replaceAll('.', '\\.')}/\\w+$`));
      expect(loadConfig(manifest.configSchema, {}).GRPC_PORT).toBe(manifest.service.defaultGrpcPort);
    },
  );
});

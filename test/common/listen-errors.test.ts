import net from 'node:net';
import { ConfigError, listenError } from '../../services/platform/config';
import { bindGrpcServer } from '../../services/platform/grpc/server';
import { createLogger } from '../../services/platform/logger';

/** A port another process holds is a configuration problem that names the variable to change. */
describe('listening on a taken port', () => {
  let holder: net.Server;
  let port: number;

  beforeAll(async () => {
    holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('the gRPC bootstrap of every service names GRPC_PORT', async () => {
    // grpc-js also prints a line of its own ("No address added ..."); keep it out of the test output.
    const grpcLog = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const failure = bindGrpcServer({ host: '127.0.0.1', port, services: [], logger: createLogger({ service: 'test', level: 'silent' }) });
    await expect(failure).rejects.toThrow(ConfigError);
    await expect(failure).rejects.toThrow(
      `127.0.0.1:${port} is already in use by another process: set GRPC_PORT to a free port, or stop that process`,
    );
    grpcLog.mockRestore();
  });

  it('a Node server error names the variable it is given; other errors pass through unchanged', async () => {
    const server = net.createServer();
    const error = await new Promise<Error>((resolve) => server.once('error', resolve).listen(port, '127.0.0.1'));
    expect(listenError(error, 'PORT', `127.0.0.1:${port}`)).toEqual(
      new ConfigError(`127.0.0.1:${port} is already in use by another process: set PORT to a free port, or stop that process`),
    );
    const other = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES' });
    expect(listenError(other, 'PORT', '0.0.0.0:80')).toBe(other);
  });
});

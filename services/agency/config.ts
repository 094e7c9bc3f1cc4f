import { z } from 'zod';
import { serviceEnv } from '../common/config';
import { SERVICE_CATALOG } from '../common/service-catalog';

export const agencyConfigSchema = z.object({
  ...serviceEnv(SERVICE_CATALOG.agency.defaultGrpcPort),
});

export type AgencyConfig = z.output<typeof agencyConfigSchema>;

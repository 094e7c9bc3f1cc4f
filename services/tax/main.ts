import { loadConfig } from '../common/config';
import { runProcess } from '../common/lifecycle';
import { taxConfigSchema } from './config';
import { startTaxService } from './server';

runProcess('tax', () => startTaxService(loadConfig(taxConfigSchema)));

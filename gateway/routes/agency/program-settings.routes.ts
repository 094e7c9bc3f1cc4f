import { AttributionModel } from '../../../gen/referral/agency/v1/enums';
import { optionalEnumValue } from '../../../services/rules/enums';
import { type AnyRoute, defineRoute } from '../../http/route';
import type { RouteDeps } from '../route-deps';
import { presentProgramSettings } from './programs.presenters';
import { programSettingsBody, programSettingsSchema } from './programs.schemas';
import { projectAdmin, projectReader } from '../route-access';

const tags = ['Program settings'];

const RULES =
  'A code’s referral link is the link template with `{code}` replaced by the code and `{program_url}` by the program URL; ' +
  'the default template is `{program_url}?af={code}` (the `af` parameter the tracking reads). A template that uses the ' +
  'program URL gives no link while there is none: the affiliate portal then says the program has no link yet. The portal ' +
  'reads each code’s link from `GET …/affiliate-portal/affiliate`. The attribution settings decide which click refers a wallet ' +
  'that connects (a verified `connect_wallet` of `POST /api/v1/events`): a click of its tracking id at most ' +
  '`attribution_window_days` before, the oldest (`first_click`) or the newest (`last_click`).';

/** The project's affiliate program settings (kept by the agency): the program URL and the referral link template. */
export function programSettingsRoutes({ clients }: RouteDeps): AnyRoute[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/api/v1/projects/:projectId/program-settings',
        operationId: 'getProgramSettings',
        summary: 'The project’s affiliate program settings: its program URL and referral link template',
        description: RULES,
        tags,
        auth: projectReader,
        responses: { 200: { description: 'The settings (defaults until first changed)', schema: programSettingsSchema } },
      },
      async ({ caller }) => ({ status: 200, body: presentProgramSettings(await clients.agency.getProgramSettings({ projectId: caller.projectId })) }),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/api/v1/projects/:projectId/program-settings',
        operationId: 'updateProgramSettings',
        summary: 'Change the program URL or the referral link template',
        description:
          `${RULES} Only the fields present change; \`null\` clears the program URL, or returns the template to the default. ` +
          'The program URL is an absolute http or https URL without credentials, query or fragment; the template must contain ' +
          '`{code}`, may start with `{program_url}`, names no other placeholder and, filled in, is an absolute http or https URL. ' +
          'A bad value is a 400 naming its field, and nothing changes.',
        tags,
        auth: projectAdmin,
        body: programSettingsBody,
        responses: { 200: { description: 'The settings', schema: programSettingsSchema } },
      },
      async ({ body, caller }) => {
        const settings = await clients.agency.updateProgramSettings({
          projectId: caller.projectId,
          updateMask: Object.keys(body),
          programUrl: body.program_url ?? undefined,
          linkTemplate: body.link_template ?? undefined,
          attributionWindowDays: body.attribution_window_days ?? undefined,
          attributionModel: optionalEnumValue(AttributionModel, body.attribution_model) ?? AttributionModel.UNSPECIFIED,
          actor: { apiKeyId: caller.keyId },
        });
        return { status: 200, body: presentProgramSettings(settings) };
      },
    ),
  ];
}

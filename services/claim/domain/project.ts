/** The claim domain's check of a project id is the shared one (services/rules/subject.ts). */
export { requireProjectId } from '../../rules/subject';

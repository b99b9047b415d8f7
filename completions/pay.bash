# bash completion for pay.
# Generated from the pay command tree (src/completion/) by `npm run generate`; do not edit by hand.
# Static words (commands, flags, enum values) are embedded below, so TAB does not start Node;
# only profile names (-p/--profile, pay profiles use|show|remove) run `pay __complete profiles`,
# and a --state value `pay __complete states` (the subdivisions of the --country on the line).
#
# Install (bash 4+, or the bash 3.2 of macOS; the bash-completion package is not needed):
#   pay completion bash > ~/.pay-completion.bash
#   echo 'source ~/.pay-completion.bash' >> ~/.bashrc
# or, with bash-completion installed, let it load the file on demand:
#   pay completion bash > "${BASH_COMPLETION_USER_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion}/completions/pay"

# _pay_sub PATH WORD: the subcommand WORD names at PATH (or nothing), in _pay_r.
_pay_sub() {
  case "$1|$2" in
    '|customers') _pay_r=customers ;;
    '|kyc') _pay_r=kyc ;;
    '|kyc-legacy') _pay_r=kyc-legacy ;;
    '|features') _pay_r=features ;;
    '|accounts') _pay_r=accounts ;;
    '|external-accounts') _pay_r=external-accounts ;;
    '|transfers') _pay_r=transfers ;;
    '|cards') _pay_r=cards ;;
    '|collections') _pay_r=collections ;;
    '|payment-links') _pay_r=payment-links ;;
    '|wallets') _pay_r=wallets ;;
    '|fx') _pay_r=fx ;;
    '|transactions') _pay_r=transactions ;;
    '|webhooks') _pay_r=webhooks ;;
    '|login') _pay_r=login ;;
    '|logout') _pay_r=logout ;;
    '|profiles') _pay_r=profiles ;;
    '|api') _pay_r=api ;;
    '|openapi') _pay_r=openapi ;;
    '|emulator') _pay_r=emulator ;;
    '|trigger') _pay_r=trigger ;;
    '|seed') _pay_r=seed ;;
    '|doctor') _pay_r=doctor ;;
    '|completion') _pay_r=completion ;;
    '|help') _pay_r=help ;;
    'customers|create') _pay_r=create ;;
    'customers|list') _pay_r=list ;;
    'customers|get') _pay_r=get ;;
    'customers|update') _pay_r=update ;;
    'customers|overview') _pay_r=overview ;;
    'kyc|verify') _pay_r=verify ;;
    'kyc|submit-document') _pay_r=submit-document ;;
    'kyc|status') _pay_r=status ;;
    'kyc-legacy|verify') _pay_r=verify ;;
    'kyc-legacy|submit-document') _pay_r=submit-document ;;
    'kyc-legacy|status') _pay_r=status ;;
    'features|list') _pay_r=list ;;
    'features|check') _pay_r=check ;;
    'features|activate') _pay_r=activate ;;
    'accounts|create') _pay_r=create ;;
    'accounts|list') _pay_r=list ;;
    'accounts|get') _pay_r=get ;;
    'accounts|close') _pay_r=close ;;
    'external-accounts|add') _pay_r=add ;;
    'external-accounts|list') _pay_r=list ;;
    'external-accounts|get') _pay_r=get ;;
    'external-accounts|remove') _pay_r=remove ;;
    'transfers|send') _pay_r=send ;;
    'transfers|list') _pay_r=list ;;
    'transfers|get') _pay_r=get ;;
    'transfers|cancel') _pay_r=cancel ;;
    'cards|issue') _pay_r=issue ;;
    'cards|list') _pay_r=list ;;
    'cards|get') _pay_r=get ;;
    'cards|freeze') _pay_r=freeze ;;
    'cards|unfreeze') _pay_r=unfreeze ;;
    'cards|terminate') _pay_r=terminate ;;
    'collections|create') _pay_r=create ;;
    'collections|list') _pay_r=list ;;
    'collections|get') _pay_r=get ;;
    'payment-links|create') _pay_r=create ;;
    'payment-links|list') _pay_r=list ;;
    'payment-links|get') _pay_r=get ;;
    'payment-links|disable') _pay_r=disable ;;
    'wallets|create') _pay_r=create ;;
    'wallets|list') _pay_r=list ;;
    'wallets|get') _pay_r=get ;;
    'fx|rates') _pay_r=rates ;;
    'fx|quote') _pay_r=quote ;;
    'fx|get-quote'|'fx|quote-get') _pay_r=get-quote ;;
    'fx|trade') _pay_r=trade ;;
    'fx|trades'|'fx|list-trades') _pay_r=trades ;;
    'fx|get-trade'|'fx|trade-get') _pay_r=get-trade ;;
    'transactions|list') _pay_r=list ;;
    'transactions|get') _pay_r=get ;;
    'webhooks|list') _pay_r=list ;;
    'webhooks|get') _pay_r=get ;;
    'webhooks|resend') _pay_r=resend ;;
    'webhooks|verify') _pay_r=verify ;;
    'webhooks|listen') _pay_r=listen ;;
    'profiles|list') _pay_r=list ;;
    'profiles|show') _pay_r=show ;;
    'profiles|use') _pay_r=use ;;
    'profiles|remove') _pay_r=remove ;;
    'profiles|set') _pay_r=set ;;
    'emulator|start') _pay_r=start ;;
    'emulator|status') _pay_r=status ;;
    'emulator|reset') _pay_r=reset ;;
    'emulator|clock') _pay_r=clock ;;
    'emulator|webhook-url') _pay_r=webhook-url ;;
    'emulator|faults') _pay_r=faults ;;
    'emulator|requests') _pay_r=requests ;;
    'emulator clock|advance') _pay_r=advance ;;
    'seed|apply') _pay_r=apply ;;
    'seed|plan') _pay_r=plan ;;
    *) _pay_r= ;;
  esac
}

# _pay_subs PATH: the subcommands of PATH, in _pay_r.
_pay_subs() {
  case $1 in
    '') _pay_r='customers kyc kyc-legacy features accounts external-accounts transfers cards collections payment-links wallets fx transactions webhooks login logout profiles api openapi emulator trigger seed doctor completion help' ;;
    'customers') _pay_r='create list get update overview' ;;
    'kyc'|'kyc-legacy') _pay_r='verify submit-document status' ;;
    'features') _pay_r='list check activate' ;;
    'accounts') _pay_r='create list get close' ;;
    'external-accounts') _pay_r='add list get remove' ;;
    'transfers') _pay_r='send list get cancel' ;;
    'cards') _pay_r='issue list get freeze unfreeze terminate' ;;
    'collections'|'wallets') _pay_r='create list get' ;;
    'payment-links') _pay_r='create list get disable' ;;
    'fx') _pay_r='rates quote get-quote trade trades get-trade' ;;
    'transactions') _pay_r='list get' ;;
    'webhooks') _pay_r='list get resend verify listen' ;;
    'profiles') _pay_r='list show use remove set' ;;
    'emulator') _pay_r='start status reset clock webhook-url faults requests' ;;
    'emulator clock') _pay_r='advance' ;;
    'seed') _pay_r='apply plan' ;;
    *) _pay_r= ;;
  esac
}

# _pay_flags PATH: the flags of PATH and the global flags, in _pay_r.
_pay_flags() {
  case $1 in
    '') _pay_r='-v --version -h --help' ;;
    'customers'|'kyc'|'kyc-legacy'|'features'|'accounts'|'external-accounts'|'transfers'|'cards'|'collections'|'payment-links'|'wallets'|'fx'|'transactions'|'webhooks'|'logout'|'profiles'|'profiles use'|'profiles set'|'emulator'|'emulator clock'|'seed'|'completion'|'help') _pay_r='-h --help' ;;
    'customers create') _pay_r='--first-name --last-name --middle-name --email --phone --type --gender --date-of-birth --address-line1 --city --country --postal-code --state --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'customers list') _pay_r='--email --type --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'customers get'|'customers overview'|'kyc status'|'kyc-legacy status'|'accounts get'|'external-accounts get'|'transfers get'|'cards get'|'collections get'|'payment-links get'|'wallets get'|'fx get-quote'|'fx get-trade'|'transactions get'|'webhooks get'|'profiles list'|'profiles show') _pay_r='--json -o --output --jq --fields --no-header --wide -h --help' ;;
    'customers update') _pay_r='--first-name --last-name --middle-name --email --phone --type --gender --date-of-birth --address-line1 --city --country --postal-code --state --data --dry-run --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'kyc verify'|'kyc-legacy verify') _pay_r='--level --wait --wait-timeout --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'kyc submit-document'|'kyc-legacy submit-document') _pay_r='--type --country --number --file-name --wait --wait-timeout --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'features list') _pay_r='--json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'features check') _pay_r='--feature --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'features activate') _pay_r='--feature --idempotency-key --dry-run --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'accounts create') _pay_r='--customer --currency --type --nickname --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'accounts list') _pay_r='--customer --currency --status --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'accounts close'|'transfers cancel'|'cards terminate'|'payment-links disable') _pay_r='--idempotency-key -y --yes --dry-run --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'external-accounts add') _pay_r='--customer --account-holder-name --bank-name --account-number --routing-number --iban --country --currency --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'external-accounts list') _pay_r='--customer --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'external-accounts remove') _pay_r='-y --yes --dry-run --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'transfers send') _pay_r='--from --to --amount --currency --description --reference --wait --wait-timeout --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'transfers list') _pay_r='--account --status --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'cards issue') _pay_r='--customer --account --type --name-on-card --spending-limit --spending-interval --address-line1 --city --country --postal-code --state --wait --wait-timeout --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'cards list') _pay_r='--customer --account --status --type --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'cards freeze'|'cards unfreeze') _pay_r='--idempotency-key --dry-run --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'collections create') _pay_r='--account --amount --currency --method --customer --description --mobile-phone --mobile-provider --wait --wait-timeout --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'collections list') _pay_r='--account --status --method --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'payment-links create') _pay_r='--wallet --amount --asset --description --expires-at --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'payment-links list') _pay_r='--wallet --status --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'wallets create') _pay_r='--customer --asset --network --label --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'wallets list') _pay_r='--customer --asset --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'fx rates') _pay_r='--base --symbols --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'fx quote') _pay_r='--from --to --amount --target-amount --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'fx trade') _pay_r='--from-account --to-account --data --idempotency-key -y --yes --interactive --dry-run --from-file --concurrency --resume --fail-fast --batch-id --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'fx trades') _pay_r='--account --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'transactions list') _pay_r='--account --wallet --from --to --since --until --type --status --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'webhooks list') _pay_r='--type --status --object --since --until --json -o --output --jq --fields --no-header --wide --limit --all -h --help' ;;
    'webhooks resend') _pay_r='--wait --wait-timeout --idempotency-key --dry-run --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'webhooks verify') _pay_r='--payload --secret --header --id --timestamp --signature --json -o --output --jq -h --help' ;;
    'webhooks listen') _pay_r='--port --host --forward-to --events --skip-duplicates --print-secret --secret --json -o --output --jq -h --help' ;;
    'login') _pay_r='--with-key --public-key --webhook-secret-stdin --set-current --check -h --help' ;;
    'profiles remove') _pay_r='-y --yes -h --help' ;;
    'api') _pay_r='--data -F --field --idempotency-key -i --include --paginate -y --yes --json -o --output --jq --dry-run -h --help' ;;
    'openapi') _pay_r='--yaml --json -o --output --jq -h --help' ;;
    'emulator start') _pay_r='--host --port --data-dir --set-aside-unknown --webhook-url --configure-profile --fail-rate --latency --reset-rate --rate-limit --settle-after --allow-origin -h --help' ;;
    'emulator status') _pay_r='--json -o --output --jq --wide -h --help' ;;
    'emulator reset') _pay_r='-y --yes --json -o --output --jq --dry-run -h --help' ;;
    'emulator clock advance') _pay_r='--json -o --output --jq --dry-run -h --help' ;;
    'emulator webhook-url') _pay_r='--clear --json -o --output --jq --dry-run -h --help' ;;
    'emulator faults') _pay_r='--fail-rate --latency --reset-rate --rate-limit --clear --json -o --output --jq --wide --dry-run -h --help' ;;
    'emulator requests') _pay_r='--follow --status --path --limit --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'trigger') _pay_r='--list --override --wait-timeout -y --yes --json -o --output --jq --wide --dry-run -h --help' ;;
    'seed apply') _pay_r='--state --concurrency --replace --dry-run -y --yes --allow-env --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'seed plan') _pay_r='--state --allow-env --json -o --output --jq --fields --no-header --wide -h --help' ;;
    'doctor') _pay_r='--json -o --output --jq -h --help' ;;
    *) _pay_r= ;;
  esac
  _pay_r="$_pay_r "'-p --profile --live --api-key --tenant --base-url --no-input --timeout --max-retries --max-response-bytes --debug --no-color --no-pager --quiet --no-names --time'
}

# _pay_value PATH FLAG: whether FLAG takes a value at PATH, in _pay_k (c: the choices in _pay_r,
# p: a profile name, a: anything, empty: no value).
_pay_value() {
  case "$1|$2" in
    'customers create|--first-name'|'customers create|--last-name'|'customers create|--middle-name'|'customers create|--email'|'customers create|--phone'|'customers create|--date-of-birth'|'customers create|--address-line1'|'customers create|--city'|'customers create|--postal-code'|'customers create|--data'|'customers create|--idempotency-key'|'customers create|--from-file'|'customers create|--concurrency'|'customers create|--resume'|'customers create|--batch-id'|'customers create|--jq'|'customers create|--fields'|'customers list|--email'|'customers list|--type'|'customers list|--since'|'customers list|--until'|'customers list|--jq'|'customers list|--fields'|'customers list|--limit'|'customers get|--jq'|'customers get|--fields'|'customers update|--first-name'|'customers update|--last-name'|'customers update|--middle-name'|'customers update|--email'|'customers update|--phone'|'customers update|--date-of-birth'|'customers update|--address-line1'|'customers update|--city'|'customers update|--postal-code'|'customers update|--data'|'customers update|--jq'|'customers update|--fields'|'customers overview|--jq'|'customers overview|--fields'|'kyc verify|--wait-timeout'|'kyc verify|--data'|'kyc verify|--idempotency-key'|'kyc verify|--from-file'|'kyc verify|--concurrency'|'kyc verify|--resume'|'kyc verify|--batch-id'|'kyc verify|--jq'|'kyc verify|--fields'|'kyc submit-document|--number'|'kyc submit-document|--file-name'|'kyc submit-document|--wait-timeout'|'kyc submit-document|--data'|'kyc submit-document|--idempotency-key'|'kyc submit-document|--from-file'|'kyc submit-document|--concurrency'|'kyc submit-document|--resume'|'kyc submit-document|--batch-id'|'kyc submit-document|--jq'|'kyc submit-document|--fields'|'kyc status|--jq'|'kyc status|--fields'|'kyc-legacy verify|--wait-timeout'|'kyc-legacy verify|--data'|'kyc-legacy verify|--idempotency-key'|'kyc-legacy verify|--from-file'|'kyc-legacy verify|--concurrency'|'kyc-legacy verify|--resume'|'kyc-legacy verify|--batch-id'|'kyc-legacy verify|--jq'|'kyc-legacy verify|--fields'|'kyc-legacy submit-document|--number'|'kyc-legacy submit-document|--file-name'|'kyc-legacy submit-document|--wait-timeout'|'kyc-legacy submit-document|--data'|'kyc-legacy submit-document|--idempotency-key'|'kyc-legacy submit-document|--from-file'|'kyc-legacy submit-document|--concurrency'|'kyc-legacy submit-document|--resume'|'kyc-legacy submit-document|--batch-id'|'kyc-legacy submit-document|--jq'|'kyc-legacy submit-document|--fields'|'kyc-legacy status|--jq'|'kyc-legacy status|--fields'|'features list|--jq'|'features list|--fields'|'features list|--limit'|'features check|--jq'|'features check|--fields'|'features activate|--idempotency-key'|'features activate|--jq'|'features activate|--fields'|'accounts create|--customer'|'accounts create|--currency'|'accounts create|--nickname'|'accounts create|--data'|'accounts create|--idempotency-key'|'accounts create|--from-file'|'accounts create|--concurrency'|'accounts create|--resume'|'accounts create|--batch-id'|'accounts create|--jq'|'accounts create|--fields'|'accounts list|--customer'|'accounts list|--currency'|'accounts list|--since'|'accounts list|--until'|'accounts list|--jq'|'accounts list|--fields'|'accounts list|--limit'|'accounts get|--jq'|'accounts get|--fields'|'accounts close|--idempotency-key'|'accounts close|--jq'|'accounts close|--fields'|'external-accounts add|--customer'|'external-accounts add|--account-holder-name'|'external-accounts add|--bank-name'|'external-accounts add|--account-number'|'external-accounts add|--routing-number'|'external-accounts add|--iban'|'external-accounts add|--currency'|'external-accounts add|--data'|'external-accounts add|--idempotency-key'|'external-accounts add|--from-file'|'external-accounts add|--concurrency'|'external-accounts add|--resume'|'external-accounts add|--batch-id'|'external-accounts add|--jq'|'external-accounts add|--fields'|'external-accounts list|--customer'|'external-accounts list|--since'|'external-accounts list|--until'|'external-accounts list|--jq'|'external-accounts list|--fields'|'external-accounts list|--limit'|'external-accounts get|--jq'|'external-accounts get|--fields'|'external-accounts remove|--jq'|'external-accounts remove|--fields'|'transfers send|--from'|'transfers send|--to'|'transfers send|--amount'|'transfers send|--currency'|'transfers send|--description'|'transfers send|--reference'|'transfers send|--wait-timeout'|'transfers send|--data'|'transfers send|--idempotency-key'|'transfers send|--from-file'|'transfers send|--concurrency'|'transfers send|--resume'|'transfers send|--batch-id'|'transfers send|--jq'|'transfers send|--fields'|'transfers list|--account'|'transfers list|--since'|'transfers list|--until'|'transfers list|--jq'|'transfers list|--fields'|'transfers list|--limit'|'transfers get|--jq'|'transfers get|--fields'|'transfers cancel|--idempotency-key'|'transfers cancel|--jq'|'transfers cancel|--fields'|'cards issue|--customer'|'cards issue|--account'|'cards issue|--name-on-card'|'cards issue|--spending-limit'|'cards issue|--address-line1'|'cards issue|--city'|'cards issue|--postal-code'|'cards issue|--wait-timeout'|'cards issue|--data'|'cards issue|--idempotency-key'|'cards issue|--from-file'|'cards issue|--concurrency'|'cards issue|--resume'|'cards issue|--batch-id'|'cards issue|--jq'|'cards issue|--fields'|'cards list|--customer'|'cards list|--account'|'cards list|--since'|'cards list|--until'|'cards list|--jq'|'cards list|--fields'|'cards list|--limit'|'cards get|--jq'|'cards get|--fields'|'cards freeze|--idempotency-key'|'cards freeze|--jq'|'cards freeze|--fields'|'cards unfreeze|--idempotency-key'|'cards unfreeze|--jq'|'cards unfreeze|--fields'|'cards terminate|--idempotency-key'|'cards terminate|--jq'|'cards terminate|--fields'|'collections create|--account'|'collections create|--amount'|'collections create|--currency'|'collections create|--customer'|'collections create|--description'|'collections create|--mobile-phone'|'collections create|--wait-timeout'|'collections create|--data'|'collections create|--idempotency-key'|'collections create|--from-file'|'collections create|--concurrency'|'collections create|--resume'|'collections create|--batch-id'|'collections create|--jq'|'collections create|--fields'|'collections list|--account'|'collections list|--since'|'collections list|--until'|'collections list|--jq'|'collections list|--fields'|'collections list|--limit'|'collections get|--jq'|'collections get|--fields'|'payment-links create|--wallet'|'payment-links create|--amount'|'payment-links create|--asset'|'payment-links create|--description'|'payment-links create|--expires-at'|'payment-links create|--data'|'payment-links create|--idempotency-key'|'payment-links create|--from-file'|'payment-links create|--concurrency'|'payment-links create|--resume'|'payment-links create|--batch-id'|'payment-links create|--jq'|'payment-links create|--fields'|'payment-links list|--wallet'|'payment-links list|--since'|'payment-links list|--until'|'payment-links list|--jq'|'payment-links list|--fields'|'payment-links list|--limit'|'payment-links get|--jq'|'payment-links get|--fields'|'payment-links disable|--idempotency-key'|'payment-links disable|--jq'|'payment-links disable|--fields'|'wallets create|--customer'|'wallets create|--asset'|'wallets create|--label'|'wallets create|--data'|'wallets create|--idempotency-key'|'wallets create|--from-file'|'wallets create|--concurrency'|'wallets create|--resume'|'wallets create|--batch-id'|'wallets create|--jq'|'wallets create|--fields'|'wallets list|--customer'|'wallets list|--asset'|'wallets list|--since'|'wallets list|--until'|'wallets list|--jq'|'wallets list|--fields'|'wallets list|--limit'|'wallets get|--jq'|'wallets get|--fields'|'fx rates|--base'|'fx rates|--symbols'|'fx rates|--jq'|'fx rates|--fields'|'fx quote|--from'|'fx quote|--to'|'fx quote|--amount'|'fx quote|--target-amount'|'fx quote|--data'|'fx quote|--idempotency-key'|'fx quote|--from-file'|'fx quote|--concurrency'|'fx quote|--resume'|'fx quote|--batch-id'|'fx quote|--jq'|'fx quote|--fields'|'fx get-quote|--jq'|'fx get-quote|--fields'|'fx trade|--from-account'|'fx trade|--to-account'|'fx trade|--data'|'fx trade|--idempotency-key'|'fx trade|--from-file'|'fx trade|--concurrency'|'fx trade|--resume'|'fx trade|--batch-id'|'fx trade|--jq'|'fx trade|--fields'|'fx trades|--account'|'fx trades|--since'|'fx trades|--until'|'fx trades|--jq'|'fx trades|--fields'|'fx trades|--limit'|'fx get-trade|--jq'|'fx get-trade|--fields'|'transactions list|--account'|'transactions list|--wallet'|'transactions list|--from'|'transactions list|--to'|'transactions list|--since'|'transactions list|--until'|'transactions list|--jq'|'transactions list|--fields'|'transactions list|--limit'|'transactions get|--jq'|'transactions get|--fields'|'webhooks list|--object'|'webhooks list|--since'|'webhooks list|--until'|'webhooks list|--jq'|'webhooks list|--fields'|'webhooks list|--limit'|'webhooks get|--jq'|'webhooks get|--fields'|'webhooks resend|--wait-timeout'|'webhooks resend|--idempotency-key'|'webhooks resend|--jq'|'webhooks resend|--fields'|'webhooks verify|--payload'|'webhooks verify|--secret'|'webhooks verify|--header'|'webhooks verify|--id'|'webhooks verify|--timestamp'|'webhooks verify|--signature'|'webhooks verify|--jq'|'webhooks listen|--port'|'webhooks listen|--host'|'webhooks listen|--forward-to'|'webhooks listen|--events'|'webhooks listen|--secret'|'webhooks listen|--jq'|'login|--public-key'|'profiles list|--jq'|'profiles list|--fields'|'profiles show|--jq'|'profiles show|--fields'|'api|--data'|'api|-F'|'api|--field'|'api|--idempotency-key'|'api|--jq'|'openapi|--jq'|'emulator start|--host'|'emulator start|--port'|'emulator start|--data-dir'|'emulator start|--webhook-url'|'emulator start|--configure-profile'|'emulator start|--fail-rate'|'emulator start|--latency'|'emulator start|--reset-rate'|'emulator start|--rate-limit'|'emulator start|--settle-after'|'emulator start|--allow-origin'|'emulator status|--jq'|'emulator reset|--jq'|'emulator clock advance|--jq'|'emulator webhook-url|--jq'|'emulator faults|--fail-rate'|'emulator faults|--latency'|'emulator faults|--reset-rate'|'emulator faults|--rate-limit'|'emulator faults|--jq'|'emulator requests|--status'|'emulator requests|--path'|'emulator requests|--limit'|'emulator requests|--jq'|'emulator requests|--fields'|'trigger|--override'|'trigger|--wait-timeout'|'trigger|--jq'|'seed apply|--state'|'seed apply|--concurrency'|'seed apply|--allow-env'|'seed apply|--jq'|'seed apply|--fields'|'seed plan|--state'|'seed plan|--allow-env'|'seed plan|--jq'|'seed plan|--fields'|'doctor|--jq'|*'|--api-key'|*'|--tenant'|*'|--base-url'|*'|--timeout'|*'|--max-retries'|*'|--max-response-bytes'|*'|--time') _pay_k=a _pay_r= ;;
    'customers create|--type'|'customers update|--type') _pay_k=c _pay_r='individual business' ;;
    'customers create|--gender'|'customers update|--gender') _pay_k=c _pay_r='male female non_binary undisclosed' ;;
    'customers create|--country'|'customers update|--country'|'kyc submit-document|--country'|'kyc-legacy submit-document|--country'|'external-accounts add|--country'|'cards issue|--country') _pay_k=c _pay_r='AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW' ;;
    'customers create|--state'|'customers update|--state'|'cards issue|--state') _pay_k=s _pay_r= ;;
    'customers create|-o'|'customers create|--output'|'customers list|-o'|'customers list|--output'|'customers get|-o'|'customers get|--output'|'customers update|-o'|'customers update|--output'|'customers overview|-o'|'customers overview|--output'|'kyc verify|-o'|'kyc verify|--output'|'kyc submit-document|-o'|'kyc submit-document|--output'|'kyc status|-o'|'kyc status|--output'|'kyc-legacy verify|-o'|'kyc-legacy verify|--output'|'kyc-legacy submit-document|-o'|'kyc-legacy submit-document|--output'|'kyc-legacy status|-o'|'kyc-legacy status|--output'|'features list|-o'|'features list|--output'|'features check|-o'|'features check|--output'|'features activate|-o'|'features activate|--output'|'accounts create|-o'|'accounts create|--output'|'accounts list|-o'|'accounts list|--output'|'accounts get|-o'|'accounts get|--output'|'accounts close|-o'|'accounts close|--output'|'external-accounts add|-o'|'external-accounts add|--output'|'external-accounts list|-o'|'external-accounts list|--output'|'external-accounts get|-o'|'external-accounts get|--output'|'external-accounts remove|-o'|'external-accounts remove|--output'|'transfers send|-o'|'transfers send|--output'|'transfers list|-o'|'transfers list|--output'|'transfers get|-o'|'transfers get|--output'|'transfers cancel|-o'|'transfers cancel|--output'|'cards issue|-o'|'cards issue|--output'|'cards list|-o'|'cards list|--output'|'cards get|-o'|'cards get|--output'|'cards freeze|-o'|'cards freeze|--output'|'cards unfreeze|-o'|'cards unfreeze|--output'|'cards terminate|-o'|'cards terminate|--output'|'collections create|-o'|'collections create|--output'|'collections list|-o'|'collections list|--output'|'collections get|-o'|'collections get|--output'|'payment-links create|-o'|'payment-links create|--output'|'payment-links list|-o'|'payment-links list|--output'|'payment-links get|-o'|'payment-links get|--output'|'payment-links disable|-o'|'payment-links disable|--output'|'wallets create|-o'|'wallets create|--output'|'wallets list|-o'|'wallets list|--output'|'wallets get|-o'|'wallets get|--output'|'fx rates|-o'|'fx rates|--output'|'fx quote|-o'|'fx quote|--output'|'fx get-quote|-o'|'fx get-quote|--output'|'fx trade|-o'|'fx trade|--output'|'fx trades|-o'|'fx trades|--output'|'fx get-trade|-o'|'fx get-trade|--output'|'transactions list|-o'|'transactions list|--output'|'transactions get|-o'|'transactions get|--output'|'webhooks list|-o'|'webhooks list|--output'|'webhooks get|-o'|'webhooks get|--output'|'webhooks resend|-o'|'webhooks resend|--output'|'profiles list|-o'|'profiles list|--output'|'profiles show|-o'|'profiles show|--output'|'emulator status|-o'|'emulator status|--output'|'emulator faults|-o'|'emulator faults|--output'|'emulator requests|-o'|'emulator requests|--output'|'trigger|-o'|'trigger|--output'|'seed apply|-o'|'seed apply|--output'|'seed plan|-o'|'seed plan|--output') _pay_k=c _pay_r='table tsv csv json ndjson' ;;
    'kyc verify|--level'|'kyc-legacy verify|--level') _pay_k=c _pay_r='basic enhanced' ;;
    'kyc submit-document|--type'|'kyc-legacy submit-document|--type') _pay_k=c _pay_r='passport national_id drivers_license utility_bill selfie' ;;
    'features check|--feature'|'features activate|--feature') _pay_k=c _pay_r='cards collections crypto_wallets payment_links fx international_transfers' ;;
    'accounts create|--type') _pay_k=c _pay_r='checking savings' ;;
    'accounts list|--status') _pay_k=c _pay_r='active closed' ;;
    'transfers list|--status') _pay_k=c _pay_r='pending completed failed cancelled' ;;
    'cards issue|--type'|'cards list|--type') _pay_k=c _pay_r='virtual physical' ;;
    'cards issue|--spending-interval') _pay_k=c _pay_r='daily monthly' ;;
    'cards list|--status') _pay_k=c _pay_r='inactive active frozen terminated' ;;
    'collections create|--method'|'collections list|--method') _pay_k=c _pay_r='card bank_transfer mobile_money' ;;
    'collections create|--mobile-provider') _pay_k=c _pay_r='mpesa mtn airtel' ;;
    'collections list|--status') _pay_k=c _pay_r='pending succeeded failed' ;;
    'payment-links list|--status') _pay_k=c _pay_r='active disabled expired paid' ;;
    'wallets create|--network') _pay_k=c _pay_r='bitcoin ethereum polygon tron' ;;
    'transactions list|--type') _pay_k=c _pay_r='transfer collection fx_trade reversal' ;;
    'transactions list|--status') _pay_k=c _pay_r='pending posted voided' ;;
    'webhooks list|--type') _pay_k=c _pay_r='customer.created customer.updated kyc.pending kyc.in_review kyc.approved kyc.rejected feature.activated account.created account.closed external_account.created external_account.removed transfer.created transfer.completed transfer.failed transfer.cancelled card.created card.activated card.frozen card.unfrozen card.terminated collection.created collection.succeeded collection.failed payment_link.created payment_link.disabled payment_link.expired wallet.created fx_trade.completed' ;;
    'webhooks list|--status') _pay_k=c _pay_r='pending delivered failed disabled' ;;
    'webhooks verify|-o'|'webhooks verify|--output'|'webhooks listen|-o'|'webhooks listen|--output'|'api|-o'|'api|--output') _pay_k=c _pay_r='json ndjson' ;;
    'openapi|-o'|'openapi|--output'|'emulator reset|-o'|'emulator reset|--output'|'emulator clock advance|-o'|'emulator clock advance|--output'|'emulator webhook-url|-o'|'emulator webhook-url|--output'|'doctor|-o'|'doctor|--output') _pay_k=c _pay_r='json' ;;
    *'|-p'|*'|--profile') _pay_k=p _pay_r= ;;
    *) _pay_k= _pay_r= ;;
  esac
}

# _pay_args PATH: what PATH's first positional word is, in _pay_k (c: one of _pay_r, p: a profile name,
# a: anything, n: the command takes none).
_pay_args() {
  case $1 in
    'customers create'|'customers list'|'features list'|'accounts create'|'accounts list'|'external-accounts add'|'external-accounts list'|'transfers send'|'transfers list'|'cards issue'|'cards list'|'collections create'|'collections list'|'payment-links create'|'payment-links list'|'wallets create'|'wallets list'|'fx rates'|'fx quote'|'fx trades'|'transactions list'|'webhooks list'|'webhooks verify'|'webhooks listen'|'login'|'logout'|'profiles list'|'openapi'|'emulator start'|'emulator status'|'emulator reset'|'emulator faults'|'emulator requests'|'doctor') _pay_k=n ;;
    'customers get'|'customers update'|'customers overview'|'kyc verify'|'kyc submit-document'|'kyc status'|'kyc-legacy verify'|'kyc-legacy submit-document'|'kyc-legacy status'|'features check'|'features activate'|'accounts get'|'accounts close'|'external-accounts get'|'external-accounts remove'|'transfers get'|'transfers cancel'|'cards get'|'cards freeze'|'cards unfreeze'|'cards terminate'|'collections get'|'payment-links get'|'payment-links disable'|'wallets get'|'fx get-quote'|'fx trade'|'fx get-trade'|'transactions get'|'webhooks get'|'webhooks resend'|'profiles set'|'api'|'emulator clock advance'|'emulator webhook-url'|'seed apply'|'seed plan'|'help') _pay_k=a ;;
    'profiles show'|'profiles use'|'profiles remove') _pay_k=p ;;
    'trigger') _pay_k=c _pay_r='customer.created customer.updated kyc.pending kyc.in_review kyc.approved kyc.rejected feature.activated account.created account.closed external_account.created external_account.removed transfer.created transfer.completed transfer.failed transfer.cancelled card.created card.activated card.frozen card.unfrozen card.terminated collection.created collection.succeeded collection.failed payment_link.created payment_link.disabled payment_link.expired wallet.created fx_trade.completed' ;;
    'completion') _pay_k=c _pay_r='bash zsh fish' ;;
    *) _pay_k=a ;;
  esac
}

# _pay_add WORDS: the words that start with $cur.
_pay_add() {
  local w
  for w in $1; do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done
}

_pay_profiles() {
  local w IFS=$'\n'
  for w in $(command pay __complete profiles 2>/dev/null); do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done
}

_pay_states() {
  local w IFS=$'\n'
  for w in $(command pay __complete states "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null); do COMPREPLY+=("${w%%$'\t'*}"); done
}

_pay() {
  local IFS=$' \t\n' cur=${COMP_WORDS[COMP_CWORD]} p= expect= dd= np=0 w i _pay_r _pay_k
  COMPREPLY=()
  for (( i = 1; i < COMP_CWORD; i++ )); do
    w=${COMP_WORDS[i]}
    if [[ -n $expect ]]; then
      # --flag=value: COMP_WORDBREAKS splits it into --flag, =, value.
      [[ $w == = ]] || expect=
      continue
    fi
    if [[ -n $dd ]]; then np=$((np + 1)); continue; fi
    case $w in
      --) dd=1 ;;
      -?*) _pay_value "$p" "$w"; [[ -n $_pay_k ]] && expect=$w ;;
      *) _pay_sub "$p" "$w"
         if [[ -n $_pay_r ]]; then p=${p:+$p }$_pay_r np=0; else np=$((np + 1)); fi ;;
    esac
  done
  if [[ -n $expect ]]; then
    [[ $cur == = ]] && cur=
    _pay_value "$p" "$expect"
    case $_pay_k in
      c) _pay_add "$_pay_r" ;;
      p) _pay_profiles ;;
      s) _pay_states ;;
    esac
    return 0
  fi
  if [[ -z $dd && $cur == -* ]]; then
    _pay_flags "$p"; _pay_add "$_pay_r"
    return 0
  fi
  _pay_subs "$p"
  if [[ -n $_pay_r ]]; then
    [[ -z $dd ]] && _pay_add "$_pay_r"
    return 0
  fi
  _pay_args "$p"
  case $_pay_k in
    c) (( np == 0 )) && _pay_add "$_pay_r" ;;
    p) (( np == 0 )) && _pay_profiles ;;
    n) [[ -z $dd ]] && { _pay_flags "$p"; _pay_add "$_pay_r"; } ;;
  esac
  return 0
}

complete -F _pay pay

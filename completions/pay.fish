# fish completion for pay.
# Generated from the pay command tree (src/completion/) by `npm run generate`; do not edit by hand.
# Static words (commands, flags, enum values) are embedded below, so TAB does not start Node;
# only profile names (-p/--profile, pay profiles use|show|remove) run `pay __complete profiles`,
# and a --state value `pay __complete states` (the subdivisions of the --country on the line).
#
# Install: pay completion fish > ~/.config/fish/completions/pay.fish

# __pay_sub PATH WORD: prints the subcommand WORD names at PATH.
function __pay_sub
    switch "$argv[1]|$argv[2]"
        case '|customers'
            echo customers
        case '|kyc'
            echo kyc
        case '|kyc-legacy'
            echo kyc-legacy
        case '|features'
            echo features
        case '|accounts'
            echo accounts
        case '|external-accounts'
            echo external-accounts
        case '|transfers'
            echo transfers
        case '|cards'
            echo cards
        case '|collections'
            echo collections
        case '|payment-links'
            echo payment-links
        case '|wallets'
            echo wallets
        case '|fx'
            echo fx
        case '|transactions'
            echo transactions
        case '|webhooks'
            echo webhooks
        case '|login'
            echo login
        case '|logout'
            echo logout
        case '|profiles'
            echo profiles
        case '|api'
            echo api
        case '|openapi'
            echo openapi
        case '|emulator'
            echo emulator
        case '|trigger'
            echo trigger
        case '|seed'
            echo seed
        case '|doctor'
            echo doctor
        case '|completion'
            echo completion
        case '|help'
            echo help
        case 'customers|create'
            echo create
        case 'customers|list'
            echo list
        case 'customers|get'
            echo get
        case 'customers|update'
            echo update
        case 'customers|overview'
            echo overview
        case 'kyc|verify'
            echo verify
        case 'kyc|submit-document'
            echo submit-document
        case 'kyc|status'
            echo status
        case 'kyc-legacy|verify'
            echo verify
        case 'kyc-legacy|submit-document'
            echo submit-document
        case 'kyc-legacy|status'
            echo status
        case 'features|list'
            echo list
        case 'features|check'
            echo check
        case 'features|activate'
            echo activate
        case 'accounts|create'
            echo create
        case 'accounts|list'
            echo list
        case 'accounts|get'
            echo get
        case 'accounts|close'
            echo close
        case 'external-accounts|add'
            echo add
        case 'external-accounts|list'
            echo list
        case 'external-accounts|get'
            echo get
        case 'external-accounts|remove'
            echo remove
        case 'transfers|send'
            echo send
        case 'transfers|list'
            echo list
        case 'transfers|get'
            echo get
        case 'transfers|cancel'
            echo cancel
        case 'cards|issue'
            echo issue
        case 'cards|list'
            echo list
        case 'cards|get'
            echo get
        case 'cards|freeze'
            echo freeze
        case 'cards|unfreeze'
            echo unfreeze
        case 'cards|terminate'
            echo terminate
        case 'collections|create'
            echo create
        case 'collections|list'
            echo list
        case 'collections|get'
            echo get
        case 'payment-links|create'
            echo create
        case 'payment-links|list'
            echo list
        case 'payment-links|get'
            echo get
        case 'payment-links|disable'
            echo disable
        case 'wallets|create'
            echo create
        case 'wallets|list'
            echo list
        case 'wallets|get'
            echo get
        case 'fx|rates'
            echo rates
        case 'fx|quote'
            echo quote
        case 'fx|get-quote' 'fx|quote-get'
            echo get-quote
        case 'fx|trade'
            echo trade
        case 'fx|trades' 'fx|list-trades'
            echo trades
        case 'fx|get-trade' 'fx|trade-get'
            echo get-trade
        case 'transactions|list'
            echo list
        case 'transactions|get'
            echo get
        case 'webhooks|list'
            echo list
        case 'webhooks|get'
            echo get
        case 'webhooks|resend'
            echo resend
        case 'webhooks|verify'
            echo verify
        case 'webhooks|listen'
            echo listen
        case 'profiles|list'
            echo list
        case 'profiles|show'
            echo show
        case 'profiles|use'
            echo use
        case 'profiles|remove'
            echo remove
        case 'profiles|set'
            echo set
        case 'emulator|start'
            echo start
        case 'emulator|status'
            echo status
        case 'emulator|reset'
            echo reset
        case 'emulator|clock'
            echo clock
        case 'emulator|webhook-url'
            echo webhook-url
        case 'emulator|faults'
            echo faults
        case 'emulator|requests'
            echo requests
        case 'emulator clock|advance'
            echo advance
        case 'seed|apply'
            echo apply
        case 'seed|plan'
            echo plan
    end
end

# __pay_takes_value PATH FLAG: whether FLAG takes a value (the next word) at PATH.
function __pay_takes_value
    switch "$argv[1]|$argv[2]"
        case 'customers create|--first-name' 'customers create|--last-name' 'customers create|--middle-name' 'customers create|--email' 'customers create|--phone' 'customers create|--type' 'customers create|--gender' 'customers create|--date-of-birth'
            return 0
        case 'customers create|--address-line1' 'customers create|--city' 'customers create|--country' 'customers create|--postal-code' 'customers create|--state' 'customers create|--data' 'customers create|--idempotency-key' 'customers create|--from-file'
            return 0
        case 'customers create|--concurrency' 'customers create|--resume' 'customers create|--batch-id' 'customers create|-o' 'customers create|--output' 'customers create|--jq' 'customers create|--fields' 'customers list|--email'
            return 0
        case 'customers list|--type' 'customers list|--since' 'customers list|--until' 'customers list|-o' 'customers list|--output' 'customers list|--jq' 'customers list|--fields' 'customers list|--limit'
            return 0
        case 'customers get|-o' 'customers get|--output' 'customers get|--jq' 'customers get|--fields' 'customers update|--first-name' 'customers update|--last-name' 'customers update|--middle-name' 'customers update|--email'
            return 0
        case 'customers update|--phone' 'customers update|--type' 'customers update|--gender' 'customers update|--date-of-birth' 'customers update|--address-line1' 'customers update|--city' 'customers update|--country' 'customers update|--postal-code'
            return 0
        case 'customers update|--state' 'customers update|--data' 'customers update|-o' 'customers update|--output' 'customers update|--jq' 'customers update|--fields' 'customers overview|-o' 'customers overview|--output'
            return 0
        case 'customers overview|--jq' 'customers overview|--fields' 'kyc verify|--level' 'kyc verify|--wait-timeout' 'kyc verify|--data' 'kyc verify|--idempotency-key' 'kyc verify|--from-file' 'kyc verify|--concurrency'
            return 0
        case 'kyc verify|--resume' 'kyc verify|--batch-id' 'kyc verify|-o' 'kyc verify|--output' 'kyc verify|--jq' 'kyc verify|--fields' 'kyc submit-document|--type' 'kyc submit-document|--country'
            return 0
        case 'kyc submit-document|--number' 'kyc submit-document|--file-name' 'kyc submit-document|--wait-timeout' 'kyc submit-document|--data' 'kyc submit-document|--idempotency-key' 'kyc submit-document|--from-file' 'kyc submit-document|--concurrency' 'kyc submit-document|--resume'
            return 0
        case 'kyc submit-document|--batch-id' 'kyc submit-document|-o' 'kyc submit-document|--output' 'kyc submit-document|--jq' 'kyc submit-document|--fields' 'kyc status|-o' 'kyc status|--output' 'kyc status|--jq'
            return 0
        case 'kyc status|--fields' 'kyc-legacy verify|--level' 'kyc-legacy verify|--wait-timeout' 'kyc-legacy verify|--data' 'kyc-legacy verify|--idempotency-key' 'kyc-legacy verify|--from-file' 'kyc-legacy verify|--concurrency' 'kyc-legacy verify|--resume'
            return 0
        case 'kyc-legacy verify|--batch-id' 'kyc-legacy verify|-o' 'kyc-legacy verify|--output' 'kyc-legacy verify|--jq' 'kyc-legacy verify|--fields' 'kyc-legacy submit-document|--type' 'kyc-legacy submit-document|--country' 'kyc-legacy submit-document|--number'
            return 0
        case 'kyc-legacy submit-document|--file-name' 'kyc-legacy submit-document|--wait-timeout' 'kyc-legacy submit-document|--data' 'kyc-legacy submit-document|--idempotency-key' 'kyc-legacy submit-document|--from-file' 'kyc-legacy submit-document|--concurrency' 'kyc-legacy submit-document|--resume' 'kyc-legacy submit-document|--batch-id'
            return 0
        case 'kyc-legacy submit-document|-o' 'kyc-legacy submit-document|--output' 'kyc-legacy submit-document|--jq' 'kyc-legacy submit-document|--fields' 'kyc-legacy status|-o' 'kyc-legacy status|--output' 'kyc-legacy status|--jq' 'kyc-legacy status|--fields'
            return 0
        case 'features list|-o' 'features list|--output' 'features list|--jq' 'features list|--fields' 'features list|--limit' 'features check|--feature' 'features check|-o' 'features check|--output'
            return 0
        case 'features check|--jq' 'features check|--fields' 'features activate|--feature' 'features activate|--idempotency-key' 'features activate|-o' 'features activate|--output' 'features activate|--jq' 'features activate|--fields'
            return 0
        case 'accounts create|--customer' 'accounts create|--currency' 'accounts create|--type' 'accounts create|--nickname' 'accounts create|--data' 'accounts create|--idempotency-key' 'accounts create|--from-file' 'accounts create|--concurrency'
            return 0
        case 'accounts create|--resume' 'accounts create|--batch-id' 'accounts create|-o' 'accounts create|--output' 'accounts create|--jq' 'accounts create|--fields' 'accounts list|--customer' 'accounts list|--currency'
            return 0
        case 'accounts list|--status' 'accounts list|--since' 'accounts list|--until' 'accounts list|-o' 'accounts list|--output' 'accounts list|--jq' 'accounts list|--fields' 'accounts list|--limit'
            return 0
        case 'accounts get|-o' 'accounts get|--output' 'accounts get|--jq' 'accounts get|--fields' 'accounts close|--idempotency-key' 'accounts close|-o' 'accounts close|--output' 'accounts close|--jq'
            return 0
        case 'accounts close|--fields' 'external-accounts add|--customer' 'external-accounts add|--account-holder-name' 'external-accounts add|--bank-name' 'external-accounts add|--account-number' 'external-accounts add|--routing-number' 'external-accounts add|--iban' 'external-accounts add|--country'
            return 0
        case 'external-accounts add|--currency' 'external-accounts add|--data' 'external-accounts add|--idempotency-key' 'external-accounts add|--from-file' 'external-accounts add|--concurrency' 'external-accounts add|--resume' 'external-accounts add|--batch-id' 'external-accounts add|-o'
            return 0
        case 'external-accounts add|--output' 'external-accounts add|--jq' 'external-accounts add|--fields' 'external-accounts list|--customer' 'external-accounts list|--since' 'external-accounts list|--until' 'external-accounts list|-o' 'external-accounts list|--output'
            return 0
        case 'external-accounts list|--jq' 'external-accounts list|--fields' 'external-accounts list|--limit' 'external-accounts get|-o' 'external-accounts get|--output' 'external-accounts get|--jq' 'external-accounts get|--fields' 'external-accounts remove|-o'
            return 0
        case 'external-accounts remove|--output' 'external-accounts remove|--jq' 'external-accounts remove|--fields' 'transfers send|--from' 'transfers send|--to' 'transfers send|--amount' 'transfers send|--currency' 'transfers send|--description'
            return 0
        case 'transfers send|--reference' 'transfers send|--wait-timeout' 'transfers send|--data' 'transfers send|--idempotency-key' 'transfers send|--from-file' 'transfers send|--concurrency' 'transfers send|--resume' 'transfers send|--batch-id'
            return 0
        case 'transfers send|-o' 'transfers send|--output' 'transfers send|--jq' 'transfers send|--fields' 'transfers list|--account' 'transfers list|--status' 'transfers list|--since' 'transfers list|--until'
            return 0
        case 'transfers list|-o' 'transfers list|--output' 'transfers list|--jq' 'transfers list|--fields' 'transfers list|--limit' 'transfers get|-o' 'transfers get|--output' 'transfers get|--jq'
            return 0
        case 'transfers get|--fields' 'transfers cancel|--idempotency-key' 'transfers cancel|-o' 'transfers cancel|--output' 'transfers cancel|--jq' 'transfers cancel|--fields' 'cards issue|--customer' 'cards issue|--account'
            return 0
        case 'cards issue|--type' 'cards issue|--name-on-card' 'cards issue|--spending-limit' 'cards issue|--spending-interval' 'cards issue|--address-line1' 'cards issue|--city' 'cards issue|--country' 'cards issue|--postal-code'
            return 0
        case 'cards issue|--state' 'cards issue|--wait-timeout' 'cards issue|--data' 'cards issue|--idempotency-key' 'cards issue|--from-file' 'cards issue|--concurrency' 'cards issue|--resume' 'cards issue|--batch-id'
            return 0
        case 'cards issue|-o' 'cards issue|--output' 'cards issue|--jq' 'cards issue|--fields' 'cards list|--customer' 'cards list|--account' 'cards list|--status' 'cards list|--type'
            return 0
        case 'cards list|--since' 'cards list|--until' 'cards list|-o' 'cards list|--output' 'cards list|--jq' 'cards list|--fields' 'cards list|--limit' 'cards get|-o'
            return 0
        case 'cards get|--output' 'cards get|--jq' 'cards get|--fields' 'cards freeze|--idempotency-key' 'cards freeze|-o' 'cards freeze|--output' 'cards freeze|--jq' 'cards freeze|--fields'
            return 0
        case 'cards unfreeze|--idempotency-key' 'cards unfreeze|-o' 'cards unfreeze|--output' 'cards unfreeze|--jq' 'cards unfreeze|--fields' 'cards terminate|--idempotency-key' 'cards terminate|-o' 'cards terminate|--output'
            return 0
        case 'cards terminate|--jq' 'cards terminate|--fields' 'collections create|--account' 'collections create|--amount' 'collections create|--currency' 'collections create|--method' 'collections create|--customer' 'collections create|--description'
            return 0
        case 'collections create|--mobile-phone' 'collections create|--mobile-provider' 'collections create|--wait-timeout' 'collections create|--data' 'collections create|--idempotency-key' 'collections create|--from-file' 'collections create|--concurrency' 'collections create|--resume'
            return 0
        case 'collections create|--batch-id' 'collections create|-o' 'collections create|--output' 'collections create|--jq' 'collections create|--fields' 'collections list|--account' 'collections list|--status' 'collections list|--method'
            return 0
        case 'collections list|--since' 'collections list|--until' 'collections list|-o' 'collections list|--output' 'collections list|--jq' 'collections list|--fields' 'collections list|--limit' 'collections get|-o'
            return 0
        case 'collections get|--output' 'collections get|--jq' 'collections get|--fields' 'payment-links create|--wallet' 'payment-links create|--amount' 'payment-links create|--asset' 'payment-links create|--description' 'payment-links create|--expires-at'
            return 0
        case 'payment-links create|--data' 'payment-links create|--idempotency-key' 'payment-links create|--from-file' 'payment-links create|--concurrency' 'payment-links create|--resume' 'payment-links create|--batch-id' 'payment-links create|-o' 'payment-links create|--output'
            return 0
        case 'payment-links create|--jq' 'payment-links create|--fields' 'payment-links list|--wallet' 'payment-links list|--status' 'payment-links list|--since' 'payment-links list|--until' 'payment-links list|-o' 'payment-links list|--output'
            return 0
        case 'payment-links list|--jq' 'payment-links list|--fields' 'payment-links list|--limit' 'payment-links get|-o' 'payment-links get|--output' 'payment-links get|--jq' 'payment-links get|--fields' 'payment-links disable|--idempotency-key'
            return 0
        case 'payment-links disable|-o' 'payment-links disable|--output' 'payment-links disable|--jq' 'payment-links disable|--fields' 'wallets create|--customer' 'wallets create|--asset' 'wallets create|--network' 'wallets create|--label'
            return 0
        case 'wallets create|--data' 'wallets create|--idempotency-key' 'wallets create|--from-file' 'wallets create|--concurrency' 'wallets create|--resume' 'wallets create|--batch-id' 'wallets create|-o' 'wallets create|--output'
            return 0
        case 'wallets create|--jq' 'wallets create|--fields' 'wallets list|--customer' 'wallets list|--asset' 'wallets list|--since' 'wallets list|--until' 'wallets list|-o' 'wallets list|--output'
            return 0
        case 'wallets list|--jq' 'wallets list|--fields' 'wallets list|--limit' 'wallets get|-o' 'wallets get|--output' 'wallets get|--jq' 'wallets get|--fields' 'fx rates|--base'
            return 0
        case 'fx rates|--symbols' 'fx rates|-o' 'fx rates|--output' 'fx rates|--jq' 'fx rates|--fields' 'fx quote|--from' 'fx quote|--to' 'fx quote|--amount'
            return 0
        case 'fx quote|--target-amount' 'fx quote|--data' 'fx quote|--idempotency-key' 'fx quote|--from-file' 'fx quote|--concurrency' 'fx quote|--resume' 'fx quote|--batch-id' 'fx quote|-o'
            return 0
        case 'fx quote|--output' 'fx quote|--jq' 'fx quote|--fields' 'fx get-quote|-o' 'fx get-quote|--output' 'fx get-quote|--jq' 'fx get-quote|--fields' 'fx trade|--from-account'
            return 0
        case 'fx trade|--to-account' 'fx trade|--data' 'fx trade|--idempotency-key' 'fx trade|--from-file' 'fx trade|--concurrency' 'fx trade|--resume' 'fx trade|--batch-id' 'fx trade|-o'
            return 0
        case 'fx trade|--output' 'fx trade|--jq' 'fx trade|--fields' 'fx trades|--account' 'fx trades|--since' 'fx trades|--until' 'fx trades|-o' 'fx trades|--output'
            return 0
        case 'fx trades|--jq' 'fx trades|--fields' 'fx trades|--limit' 'fx get-trade|-o' 'fx get-trade|--output' 'fx get-trade|--jq' 'fx get-trade|--fields' 'transactions list|--account'
            return 0
        case 'transactions list|--wallet' 'transactions list|--from' 'transactions list|--to' 'transactions list|--since' 'transactions list|--until' 'transactions list|--type' 'transactions list|--status' 'transactions list|-o'
            return 0
        case 'transactions list|--output' 'transactions list|--jq' 'transactions list|--fields' 'transactions list|--limit' 'transactions get|-o' 'transactions get|--output' 'transactions get|--jq' 'transactions get|--fields'
            return 0
        case 'webhooks list|--type' 'webhooks list|--status' 'webhooks list|--object' 'webhooks list|--since' 'webhooks list|--until' 'webhooks list|-o' 'webhooks list|--output' 'webhooks list|--jq'
            return 0
        case 'webhooks list|--fields' 'webhooks list|--limit' 'webhooks get|-o' 'webhooks get|--output' 'webhooks get|--jq' 'webhooks get|--fields' 'webhooks resend|--wait-timeout' 'webhooks resend|--idempotency-key'
            return 0
        case 'webhooks resend|-o' 'webhooks resend|--output' 'webhooks resend|--jq' 'webhooks resend|--fields' 'webhooks verify|--payload' 'webhooks verify|--secret' 'webhooks verify|--header' 'webhooks verify|--id'
            return 0
        case 'webhooks verify|--timestamp' 'webhooks verify|--signature' 'webhooks verify|-o' 'webhooks verify|--output' 'webhooks verify|--jq' 'webhooks listen|--port' 'webhooks listen|--host' 'webhooks listen|--forward-to'
            return 0
        case 'webhooks listen|--events' 'webhooks listen|--secret' 'webhooks listen|-o' 'webhooks listen|--output' 'webhooks listen|--jq' 'login|--public-key' 'profiles list|-o' 'profiles list|--output'
            return 0
        case 'profiles list|--jq' 'profiles list|--fields' 'profiles show|-o' 'profiles show|--output' 'profiles show|--jq' 'profiles show|--fields' 'api|--data' 'api|-F'
            return 0
        case 'api|--field' 'api|--idempotency-key' 'api|-o' 'api|--output' 'api|--jq' 'openapi|-o' 'openapi|--output' 'openapi|--jq'
            return 0
        case 'emulator start|--host' 'emulator start|--port' 'emulator start|--data-dir' 'emulator start|--webhook-url' 'emulator start|--configure-profile' 'emulator start|--fail-rate' 'emulator start|--latency' 'emulator start|--reset-rate'
            return 0
        case 'emulator start|--rate-limit' 'emulator start|--settle-after' 'emulator start|--allow-origin' 'emulator status|-o' 'emulator status|--output' 'emulator status|--jq' 'emulator reset|-o' 'emulator reset|--output'
            return 0
        case 'emulator reset|--jq' 'emulator clock advance|-o' 'emulator clock advance|--output' 'emulator clock advance|--jq' 'emulator webhook-url|-o' 'emulator webhook-url|--output' 'emulator webhook-url|--jq' 'emulator faults|--fail-rate'
            return 0
        case 'emulator faults|--latency' 'emulator faults|--reset-rate' 'emulator faults|--rate-limit' 'emulator faults|-o' 'emulator faults|--output' 'emulator faults|--jq' 'emulator requests|--status' 'emulator requests|--path'
            return 0
        case 'emulator requests|--limit' 'emulator requests|-o' 'emulator requests|--output' 'emulator requests|--jq' 'emulator requests|--fields' 'trigger|--override' 'trigger|--wait-timeout' 'trigger|-o'
            return 0
        case 'trigger|--output' 'trigger|--jq' 'seed apply|--state' 'seed apply|--concurrency' 'seed apply|--allow-env' 'seed apply|-o' 'seed apply|--output' 'seed apply|--jq'
            return 0
        case 'seed apply|--fields' 'seed plan|--state' 'seed plan|--allow-env' 'seed plan|-o' 'seed plan|--output' 'seed plan|--jq' 'seed plan|--fields' 'doctor|-o'
            return 0
        case 'doctor|--output' 'doctor|--jq' '*|'-p '*|'--profile '*|'--api-key '*|'--tenant '*|'--base-url '*|'--timeout
            return 0
        case '*|'--max-retries '*|'--max-response-bytes '*|'--time
            return 0
    end
    return 1
end

# __pay_state: walks the words before the cursor once per command line; sets __pay_path
# (the command path), __pay_expect (a flag whose value is due) and __pay_npos (positional words).
function __pay_state
    set -l tokens (commandline -opc)
    set -l key (string join \x1e -- $tokens)
    if set -q __pay_key; and test "$__pay_key" = "$key"
        return
    end
    set -l p ""
    set -l expect ""
    set -l dd 0
    set -l np 0
    set -e tokens[1]
    for w in $tokens
        if test -n "$expect"
            set expect ""
            continue
        end
        if test $dd = 1
            set np (math $np + 1)
            continue
        end
        switch $w
            case --
                set dd 1
            case '--*=*'
            case '-?*'
                if __pay_takes_value "$p" "$w"
                    set expect $w
                end
            case '*'
                set -l s (__pay_sub "$p" "$w")
                if test -n "$s"
                    set p (string trim -- "$p $s")
                    set np 0
                else
                    set np (math $np + 1)
                end
        end
    end
    set -g __pay_key $key
    set -g __pay_path $p
    set -g __pay_expect $expect
    set -g __pay_dd $dd
    set -g __pay_npos $np
end

# __pay_at PATH...: the command path is one of PATH... (flags).
function __pay_at
    __pay_state
    test $__pay_dd = 0; and contains -- "$__pay_path" $argv
end

# __pay_at_any: not after -- (global flags).
function __pay_at_any
    __pay_state
    test $__pay_dd = 0
end

# __pay_cmd PATH...: as __pay_at, and a word (not a flag value) is due (subcommands).
function __pay_cmd
    __pay_state
    test $__pay_dd = 0; and test -z "$__pay_expect"; and contains -- "$__pay_path" $argv
end

# __pay_arg0 PATH...: as __pay_cmd, and no positional word yet (after -- too).
function __pay_arg0
    __pay_state
    test -z "$__pay_expect"; and test $__pay_npos = 0; and contains -- "$__pay_path" $argv
end

# The words before the cursor go along: pay reads the --country among them.
function __pay_states
    command pay __complete states (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null
end

function __pay_profiles
    command pay __complete profiles 2>/dev/null
end

# No file names: every word is a command, a flag, a value or an id.
complete -c pay -f

# Subcommands.
complete -c pay -n '__pay_cmd ""' -a customers -d 'Create and manage customer profiles'
complete -c pay -n '__pay_cmd ""' -a kyc -d 'Verify customers\' identity: start a check, submit documents, follow the status'
complete -c pay -n '__pay_cmd ""' -a kyc-legacy -d '[deprecated: use pay kyc] KYC over the deprecated /kyc endpoints'
complete -c pay -n '__pay_cmd ""' -a features -d 'List product features, check and activate them for a customer'
complete -c pay -n '__pay_cmd ""' -a accounts -d 'Create and manage internal accounts and their balances'
complete -c pay -n '__pay_cmd ""' -a external-accounts -d 'Add and manage customers\' bank accounts outside the service (payout destinations)'
complete -c pay -n '__pay_cmd ""' -a transfers -d 'Send money between accounts and to external accounts'
complete -c pay -n '__pay_cmd ""' -a cards -d 'Issue virtual and physical cards; freeze, unfreeze and terminate them'
complete -c pay -n '__pay_cmd ""' -a collections -d 'Collect money into an account by card, bank transfer or mobile money'
complete -c pay -n '__pay_cmd ""' -a payment-links -d 'Create and manage crypto payment links into a wallet'
complete -c pay -n '__pay_cmd ""' -a wallets -d 'Create and inspect customers\' crypto wallets'
complete -c pay -n '__pay_cmd ""' -a fx -d 'Exchange rates, quotes and currency trades between accounts'
complete -c pay -n '__pay_cmd ""' -a transactions -d 'Browse the ledger: every credit and debit on accounts and wallets'
complete -c pay -n '__pay_cmd ""' -a webhooks -d 'Webhook events and their deliveries; verify signatures and receive deliveries locally'
complete -c pay -n '__pay_cmd ""' -a login -d 'Store keys and the tenant id in a profile'
complete -c pay -n '__pay_cmd ""' -a logout -d 'Forget a profile\'s keys for the mode in use'
complete -c pay -n '__pay_cmd ""' -a profiles -d 'List, show, switch and edit stored profiles'
complete -c pay -n '__pay_cmd ""' -a api -d 'Send a raw request to the API'
complete -c pay -n '__pay_cmd ""' -a openapi -d 'Print the API contract (OpenAPI 3.1)'
complete -c pay -n '__pay_cmd ""' -a emulator -d 'Run a local stand-in for the service'
complete -c pay -n '__pay_cmd ""' -a trigger -d 'Make the service emit a webhook event: create what causes it (--list lists them)'
complete -c pay -n '__pay_cmd ""' -a seed -d 'Create declarative test data that re-runs never duplicate'
complete -c pay -n '__pay_cmd ""' -a doctor -d 'Check the set-up and say what is wrong'
complete -c pay -n '__pay_cmd ""' -a completion -d 'Print the shell completion script'
complete -c pay -n '__pay_cmd ""' -a help -d 'Show help for a command, or a topic of the reference (pay help lists them)'
complete -c pay -n '__pay_cmd "customers"' -a create -d 'Create a customer (prompts on a terminal for the missing fields)'
complete -c pay -n '__pay_cmd "customers"' -a list -d 'List customers, newest first'
complete -c pay -n '__pay_cmd "customers"' -a get -d 'Show one customer'
complete -c pay -n '__pay_cmd "customers"' -a update -d 'Change fields of a customer (the address is replaced whole)'
complete -c pay -n '__pay_cmd "customers"' -a overview -d 'One screen for support: the customer, KYC, accounts, cards, wallets, last transactions, failed webhooks'
complete -c pay -n '__pay_cmd "kyc"' -a verify -d 'Start a KYC verification for a customer'
complete -c pay -n '__pay_cmd "kyc"' -a submit-document -d 'Submit an identity document to the customer\'s open verification'
complete -c pay -n '__pay_cmd "kyc"' -a status -d 'Show the customer\'s current verification and its documents'
complete -c pay -n '__pay_cmd "kyc-legacy"' -a verify -d '[deprecated: use pay kyc verify] Start a KYC verification (POST /kyc/verify)'
complete -c pay -n '__pay_cmd "kyc-legacy"' -a submit-document -d '[deprecated: use pay kyc submit-document] Submit an identity document (POST /kyc/documents)'
complete -c pay -n '__pay_cmd "kyc-legacy"' -a status -d '[deprecated: use pay kyc status] Show the current verification (GET /kyc/status/{customer_id})'
complete -c pay -n '__pay_cmd "features"' -a list -d 'List the features the service offers'
complete -c pay -n '__pay_cmd "features"' -a check -d 'Show whether a customer is eligible for a feature and whether it is active'
complete -c pay -n '__pay_cmd "features"' -a activate -d 'Activate a feature for a customer (fails when not eligible)'
complete -c pay -n '__pay_cmd "accounts"' -a create -d 'Open an account for a customer'
complete -c pay -n '__pay_cmd "accounts"' -a list -d 'List accounts (needs the tenant id)'
complete -c pay -n '__pay_cmd "accounts"' -a get -d 'Show one account with its balance'
complete -c pay -n '__pay_cmd "accounts"' -a close -d 'Close an account (its balance must be zero)'
complete -c pay -n '__pay_cmd "external-accounts"' -a add -d 'Add an external bank account for a customer'
complete -c pay -n '__pay_cmd "external-accounts"' -a list -d 'List external accounts, newest first'
complete -c pay -n '__pay_cmd "external-accounts"' -a get -d 'Show one external account'
complete -c pay -n '__pay_cmd "external-accounts"' -a remove -d 'Remove an external account (it can no longer receive transfers)'
complete -c pay -n '__pay_cmd "transfers"' -a send -d 'Send money from an account (to acc_… or ea_…)'
complete -c pay -n '__pay_cmd "transfers"' -a list -d 'List transfers, newest first'
complete -c pay -n '__pay_cmd "transfers"' -a get -d 'Show one transfer'
complete -c pay -n '__pay_cmd "transfers"' -a cancel -d 'Cancel a pending transfer'
complete -c pay -n '__pay_cmd "cards"' -a issue -d 'Issue a card on an account (--type virtual|physical)'
complete -c pay -n '__pay_cmd "cards"' -a list -d 'List cards, newest first'
complete -c pay -n '__pay_cmd "cards"' -a get -d 'Show one card'
complete -c pay -n '__pay_cmd "cards"' -a freeze -d 'Freeze an active card (payments are declined until unfrozen)'
complete -c pay -n '__pay_cmd "cards"' -a unfreeze -d 'Unfreeze a frozen card'
complete -c pay -n '__pay_cmd "cards"' -a terminate -d 'Terminate a card for good'
complete -c pay -n '__pay_cmd "collections"' -a create -d 'Start a collection into an account (--method card|bank_transfer|mobile_money)'
complete -c pay -n '__pay_cmd "collections"' -a list -d 'List collections, newest first'
complete -c pay -n '__pay_cmd "collections"' -a get -d 'Show one collection'
complete -c pay -n '__pay_cmd "payment-links"' -a create -d 'Create a payment link for an amount of a crypto asset'
complete -c pay -n '__pay_cmd "payment-links"' -a list -d 'List payment links, newest first'
complete -c pay -n '__pay_cmd "payment-links"' -a get -d 'Show one payment link'
complete -c pay -n '__pay_cmd "payment-links"' -a disable -d 'Disable an active payment link (it can no longer be paid)'
complete -c pay -n '__pay_cmd "wallets"' -a create -d 'Create a wallet for a customer (an asset on a network)'
complete -c pay -n '__pay_cmd "wallets"' -a list -d 'List wallets, newest first'
complete -c pay -n '__pay_cmd "wallets"' -a get -d 'Show one wallet with its address and balance'
complete -c pay -n '__pay_cmd "fx"' -a rates -d 'Show current exchange rates from a base currency'
complete -c pay -n '__pay_cmd "fx"' -a quote -d 'Get a quote: a rate locked for 60 seconds (--amount to sell, or --target-amount to buy)'
complete -c pay -n '__pay_cmd "fx"' -a get-quote -d 'Show one quote (is it still open?)'
complete -c pay -n '__pay_cmd "fx"' -a trade -d 'Trade at a quoted rate between two accounts'
complete -c pay -n '__pay_cmd "fx"' -a trades -d 'List FX trades, newest first'
complete -c pay -n '__pay_cmd "fx"' -a get-trade -d 'Show one FX trade'
complete -c pay -n '__pay_cmd "transactions"' -a list -d 'List transactions, newest first (filter by account, wallet, time, type, status)'
complete -c pay -n '__pay_cmd "transactions"' -a get -d 'Show one transaction'
complete -c pay -n '__pay_cmd "webhooks"' -a list -d 'List events with their delivery status (the delivery history)'
complete -c pay -n '__pay_cmd "webhooks"' -a get -d 'Show an event, its payload and every delivery attempt'
complete -c pay -n '__pay_cmd "webhooks"' -a resend -d 'Deliver an event again (its delivery is requeued)'
complete -c pay -n '__pay_cmd "webhooks"' -a verify -d 'Check the signature of one delivery (no network): prints valid, or invalid: <reason> and exits 1'
complete -c pay -n '__pay_cmd "webhooks"' -a listen -d 'Receive deliveries locally: verify, print and forward each one; against the emulator, register itself as its webhook URL'
complete -c pay -n '__pay_cmd "profiles"' -a list -d 'List stored profiles (keys masked)'
complete -c pay -n '__pay_cmd "profiles"' -a show -d 'Show one profile (keys masked)'
complete -c pay -n '__pay_cmd "profiles"' -a use -d 'Make a profile the current one'
complete -c pay -n '__pay_cmd "profiles"' -a remove -d 'Delete a profile and its keys'
complete -c pay -n '__pay_cmd "profiles"' -a set -d 'Set one setting of a profile (created if new)'
complete -c pay -n '__pay_cmd "emulator"' -a start -d 'Start the emulator (runs until Ctrl-C)'
complete -c pay -n '__pay_cmd "emulator"' -a status -d 'Show the emulator behind the base URL: version, uptime, clock, webhook URLs, faults, object counts, journal'
complete -c pay -n '__pay_cmd "emulator"' -a reset -d 'Forget all data in the emulator (its keys and settings stay)'
complete -c pay -n '__pay_cmd "emulator"' -a clock -d 'Move the emulator\'s clock (settlements, expiries, webhook retries follow it)'
complete -c pay -n '__pay_cmd "emulator"' -a webhook-url -d 'Show, set or clear where the emulator delivers webhook events (of the mode it runs in)'
complete -c pay -n '__pay_cmd "emulator"' -a faults -d 'Show or change the emulator\'s injected faults (fail rate, latency, resets, rate limit)'
complete -c pay -n '__pay_cmd "emulator"' -a requests -d 'List the API requests the emulator answered (method, path, status, duration, ids); --follow streams new ones'
complete -c pay -n '__pay_cmd "emulator clock"' -a advance -d 'Move the emulator\'s clock forward; what became due (settlements, expiries, retries) happens now'
complete -c pay -n '__pay_cmd "seed"' -a apply -d 'Create what the file describes and is not yet done, update or replace edited entries; print names and ids'
complete -c pay -n '__pay_cmd "seed"' -a plan -d 'Show what apply would do per entry: create, skip, update (in place) or replace (from the state file; sends nothing)'

# Flags of each command (a flag shared by several commands is one line).
complete -c pay -n '__pay_at ""' -s v -l version -d 'print the version'
complete -c pay -n '__pay_at "" "customers" "customers create" "customers list" "customers get" "customers update" "customers overview" "kyc" "kyc verify" "kyc submit-document" "kyc status" "kyc-legacy" "kyc-legacy verify" "kyc-legacy submit-document" "kyc-legacy status" "features" "features list" "features check" "features activate" "accounts" "accounts create" "accounts list" "accounts get" "accounts close" "external-accounts" "external-accounts add" "external-accounts list" "external-accounts get" "external-accounts remove" "transfers" "transfers send" "transfers list" "transfers get" "transfers cancel" "cards" "cards issue" "cards list" "cards get" "cards freeze" "cards unfreeze" "cards terminate" "collections" "collections create" "collections list" "collections get" "payment-links" "payment-links create" "payment-links list" "payment-links get" "payment-links disable" "wallets" "wallets create" "wallets list" "wallets get" "fx" "fx rates" "fx quote" "fx get-quote" "fx trade" "fx trades" "fx get-trade" "transactions" "transactions list" "transactions get" "webhooks" "webhooks list" "webhooks get" "webhooks resend" "webhooks verify" "webhooks listen" "login" "logout" "profiles" "profiles list" "profiles show" "profiles use" "profiles remove" "profiles set" "api" "openapi" "emulator" "emulator start" "emulator status" "emulator reset" "emulator clock" "emulator clock advance" "emulator webhook-url" "emulator faults" "emulator requests" "trigger" "seed" "seed apply" "seed plan" "doctor" "completion" "help"' -s h -l help -d 'show help for a command'
complete -c pay -n '__pay_at "customers create"' -l first-name -x -d 'given name (required)'
complete -c pay -n '__pay_at "customers create"' -l last-name -x -d 'family name (required)'
complete -c pay -n '__pay_at "customers create" "customers update"' -l middle-name -x -d 'middle name'
complete -c pay -n '__pay_at "customers create"' -l email -x -d 'e-mail address (required)'
complete -c pay -n '__pay_at "customers create"' -l phone -x -d 'phone in international format, e.g. +14155550123 (spaces, dashes, dots and brackets are dropped) (required)'
complete -c pay -n '__pay_at "customers create"' -l type -x -a 'individual business' -d 'customer type: individual, business, or another value (a near miss such as indivdual is refused) (required)'
complete -c pay -n '__pay_at "customers create" "customers update"' -l gender -x -a 'male female non_binary undisclosed' -d 'gender: male, female, non_binary, undisclosed, or another value (a near miss is refused)'
complete -c pay -n '__pay_at "customers create"' -l date-of-birth -x -d 'date of birth, a real date not in the future (required)'
complete -c pay -n '__pay_at "customers create"' -l address-line1 -x -d 'street line (required)'
complete -c pay -n '__pay_at "customers create"' -l city -x -d 'city (required)'
complete -c pay -n '__pay_at "customers create"' -l country -x -a 'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW' -d 'country: ISO 3166-1 alpha-2 code (US), alpha-3 (USA) or name (United States); sent as the code (required)'
complete -c pay -n '__pay_at "customers create"' -l postal-code -x -d 'postal code (required)'
complete -c pay -n '__pay_at "customers create" "customers update"' -l state -x -a '(__pay_states)' -d 'ISO 3166-2 subdivision: US-CA, or CA or California beside --country US; sent as US-CA'
complete -c pay -n '__pay_at "customers create" "customers update" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "accounts create" "external-accounts add" "transfers send" "cards issue" "collections create" "payment-links create" "wallets create" "fx quote" "fx trade"' -l data -x -d 'request body as JSON, @file or @- for stdin; flags override its fields'
complete -c pay -n '__pay_at "customers create" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "features activate" "accounts create" "accounts close" "external-accounts add" "transfers send" "transfers cancel" "cards issue" "cards freeze" "cards unfreeze" "cards terminate" "collections create" "payment-links create" "payment-links disable" "wallets create" "fx quote" "fx trade" "webhooks resend"' -l idempotency-key -x -d 'Idempotency-Key to send (default: a fresh UUID)'
complete -c pay -n '__pay_at "customers create" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "accounts create" "external-accounts add" "cards issue" "payment-links create" "wallets create" "fx quote"' -s y -l yes -d 'do not ask for confirmation of what the prompts filled in'
complete -c pay -n '__pay_at "customers create" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "accounts create" "external-accounts add" "transfers send" "cards issue" "collections create" "payment-links create" "wallets create" "fx quote" "fx trade"' -l interactive -d 'on a terminal, ask for the optional fields not given too (without asking first)'
complete -c pay -n '__pay_at "customers create" "customers update" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "features activate" "accounts create" "accounts close" "external-accounts add" "external-accounts remove" "transfers send" "transfers cancel" "cards issue" "cards freeze" "cards unfreeze" "cards terminate" "collections create" "payment-links create" "payment-links disable" "wallets create" "fx quote" "fx trade" "webhooks resend" "api" "emulator reset" "emulator clock advance" "emulator webhook-url" "emulator faults" "trigger"' -l dry-run -d 'send nothing: print each request that would change something (method, URL, headers with the key masked, body)'
complete -c pay -n '__pay_at "customers create" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "accounts create" "external-accounts add" "transfers send" "cards issue" "collections create" "payment-links create" "wallets create" "fx quote" "fx trade"' -l from-file -x -d 'create one per row of an NDJSON, CSV or JSON-array file ("-" for stdin); flags apply to every row'
complete -c pay -n '__pay_at "customers create" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "accounts create" "external-accounts add" "transfers send" "cards issue" "collections create" "payment-links create" "wallets create" "fx quote" "fx trade"' -l concurrency -x -d 'with --from-file: requests in flight (1-256)'
complete -c pay -n '__pay_at "customers create" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "accounts create" "external-accounts add" "transfers send" "cards issue" "collections create" "payment-links create" "wallets create" "fx quote" "fx trade"' -l resume -x -d 'with --from-file: skip the rows a previous run\'s results (its stdout) say were created'
complete -c pay -n '__pay_at "customers create" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "accounts create" "external-accounts add" "transfers send" "cards issue" "collections create" "payment-links create" "wallets create" "fx quote" "fx trade"' -l fail-fast -d 'with --from-file: stop at the first failed row'
complete -c pay -n '__pay_at "customers create" "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "accounts create" "external-accounts add" "transfers send" "cards issue" "collections create" "payment-links create" "wallets create" "fx quote" "fx trade"' -l batch-id -x -d 'with --from-file: the input\'s identity in the idempotency keys (default: the file name)'
complete -c pay -n '__pay_at "customers create" "customers list" "customers get" "customers update" "customers overview" "kyc verify" "kyc submit-document" "kyc status" "kyc-legacy verify" "kyc-legacy submit-document" "kyc-legacy status" "features list" "features check" "features activate" "accounts create" "accounts list" "accounts get" "accounts close" "external-accounts add" "external-accounts list" "external-accounts get" "external-accounts remove" "transfers send" "transfers list" "transfers get" "transfers cancel" "cards issue" "cards list" "cards get" "cards freeze" "cards unfreeze" "cards terminate" "collections create" "collections list" "collections get" "payment-links create" "payment-links list" "payment-links get" "payment-links disable" "wallets create" "wallets list" "wallets get" "fx rates" "fx quote" "fx get-quote" "fx trade" "fx trades" "fx get-trade" "transactions list" "transactions get" "webhooks list" "webhooks get" "webhooks resend" "webhooks verify" "webhooks listen" "profiles list" "profiles show" "api" "openapi" "emulator status" "emulator reset" "emulator clock advance" "emulator webhook-url" "emulator faults" "emulator requests" "trigger" "seed apply" "seed plan" "doctor"' -l json -d 'print JSON (same as -o json)'
complete -c pay -n '__pay_at "customers create" "customers list" "customers get" "customers update" "customers overview" "kyc verify" "kyc submit-document" "kyc status" "kyc-legacy verify" "kyc-legacy submit-document" "kyc-legacy status" "features list" "features check" "features activate" "accounts create" "accounts list" "accounts get" "accounts close" "external-accounts add" "external-accounts list" "external-accounts get" "external-accounts remove" "transfers send" "transfers list" "transfers get" "transfers cancel" "cards issue" "cards list" "cards get" "cards freeze" "cards unfreeze" "cards terminate" "collections create" "collections list" "collections get" "payment-links create" "payment-links list" "payment-links get" "payment-links disable" "wallets create" "wallets list" "wallets get" "fx rates" "fx quote" "fx get-quote" "fx trade" "fx trades" "fx get-trade" "transactions list" "transactions get" "webhooks list" "webhooks get" "webhooks resend" "profiles list" "profiles show" "emulator status" "emulator faults" "emulator requests" "trigger" "seed apply" "seed plan"' -s o -l output -x -a 'table tsv csv json ndjson' -d 'output format'
complete -c pay -n '__pay_at "customers create" "customers list" "customers get" "customers update" "customers overview" "kyc verify" "kyc submit-document" "kyc status" "kyc-legacy verify" "kyc-legacy submit-document" "kyc-legacy status" "features list" "features check" "features activate" "accounts create" "accounts list" "accounts get" "accounts close" "external-accounts add" "external-accounts list" "external-accounts get" "external-accounts remove" "transfers send" "transfers list" "transfers get" "transfers cancel" "cards issue" "cards list" "cards get" "cards freeze" "cards unfreeze" "cards terminate" "collections create" "collections list" "collections get" "payment-links create" "payment-links list" "payment-links get" "payment-links disable" "wallets create" "wallets list" "wallets get" "fx rates" "fx quote" "fx get-quote" "fx trade" "fx trades" "fx get-trade" "transactions list" "transactions get" "webhooks list" "webhooks get" "webhooks resend" "webhooks verify" "webhooks listen" "profiles list" "profiles show" "api" "openapi" "emulator status" "emulator reset" "emulator clock advance" "emulator webhook-url" "emulator faults" "emulator requests" "trigger" "seed apply" "seed plan" "doctor"' -l jq -x -d 'filter the JSON output with jq (implies --json; strings print raw), e.g. --jq ".[].id"'
complete -c pay -n '__pay_at "customers create" "customers list" "customers get" "customers update" "customers overview" "kyc verify" "kyc submit-document" "kyc status" "kyc-legacy verify" "kyc-legacy submit-document" "kyc-legacy status" "features list" "features check" "features activate" "accounts create" "accounts list" "accounts get" "accounts close" "external-accounts add" "external-accounts list" "external-accounts get" "external-accounts remove" "transfers send" "transfers list" "transfers get" "transfers cancel" "cards issue" "cards list" "cards get" "cards freeze" "cards unfreeze" "cards terminate" "collections create" "collections list" "collections get" "payment-links create" "payment-links list" "payment-links get" "payment-links disable" "wallets create" "wallets list" "wallets get" "fx rates" "fx quote" "fx get-quote" "fx trade" "fx trades" "fx get-trade" "transactions list" "transactions get" "webhooks list" "webhooks get" "webhooks resend" "profiles list" "profiles show" "emulator requests" "seed apply" "seed plan"' -l fields -x -d 'comma-separated fields to show (dotted paths, e.g. id,address.country); without names, list them'
complete -c pay -n '__pay_at "customers create" "customers list" "customers get" "customers update" "customers overview" "kyc verify" "kyc submit-document" "kyc status" "kyc-legacy verify" "kyc-legacy submit-document" "kyc-legacy status" "features list" "features check" "features activate" "accounts create" "accounts list" "accounts get" "accounts close" "external-accounts add" "external-accounts list" "external-accounts get" "external-accounts remove" "transfers send" "transfers list" "transfers get" "transfers cancel" "cards issue" "cards list" "cards get" "cards freeze" "cards unfreeze" "cards terminate" "collections create" "collections list" "collections get" "payment-links create" "payment-links list" "payment-links get" "payment-links disable" "wallets create" "wallets list" "wallets get" "fx rates" "fx quote" "fx get-quote" "fx trade" "fx trades" "fx get-trade" "transactions list" "transactions get" "webhooks list" "webhooks get" "webhooks resend" "profiles list" "profiles show" "emulator requests" "seed apply" "seed plan"' -l no-header -d 'tsv and csv: omit the header line'
complete -c pay -n '__pay_at "customers create" "customers list" "customers get" "customers update" "customers overview" "kyc verify" "kyc submit-document" "kyc status" "kyc-legacy verify" "kyc-legacy submit-document" "kyc-legacy status" "features list" "features check" "features activate" "accounts create" "accounts list" "accounts get" "accounts close" "external-accounts add" "external-accounts list" "external-accounts get" "external-accounts remove" "transfers send" "transfers list" "transfers get" "transfers cancel" "cards issue" "cards list" "cards get" "cards freeze" "cards unfreeze" "cards terminate" "collections create" "collections list" "collections get" "payment-links create" "payment-links list" "payment-links get" "payment-links disable" "wallets create" "wallets list" "wallets get" "fx rates" "fx quote" "fx get-quote" "fx trade" "fx trades" "fx get-trade" "transactions list" "transactions get" "webhooks list" "webhooks get" "webhooks resend" "profiles list" "profiles show" "emulator status" "emulator faults" "emulator requests" "trigger" "seed apply" "seed plan"' -l wide -d 'tables on a terminal: show every column at full width (long lines wrap) instead of fitting the terminal'
complete -c pay -n '__pay_at "customers list"' -l email -x -d 'only this e-mail address'
complete -c pay -n '__pay_at "customers list"' -l type -x -d 'only this customer type'
complete -c pay -n '__pay_at "customers list" "accounts list" "external-accounts list" "transfers list" "cards list" "collections list" "payment-links list" "wallets list" "fx trades" "webhooks list"' -l since -x -d 'created at or after: YYYY-MM-DD, RFC 3339, or a duration back from now (30m, 2h, 1h30m, 7d, 2w)'
complete -c pay -n '__pay_at "customers list" "accounts list" "external-accounts list" "transfers list" "cards list" "collections list" "payment-links list" "wallets list" "fx trades" "webhooks list"' -l until -x -d 'created before (exclusive): YYYY-MM-DD, RFC 3339, or a duration back from now'
complete -c pay -n '__pay_at "customers list" "features list" "accounts list" "external-accounts list" "transfers list" "cards list" "collections list" "payment-links list" "wallets list" "fx trades" "transactions list" "webhooks list"' -l limit -x -d 'how many items (1-1000; with --all, the page size)'
complete -c pay -n '__pay_at "customers list" "features list" "accounts list" "external-accounts list" "transfers list" "cards list" "collections list" "payment-links list" "wallets list" "fx trades" "transactions list" "webhooks list"' -l all -d 'follow cursors and print every page'
complete -c pay -n '__pay_at "customers update"' -l first-name -x -d 'given name'
complete -c pay -n '__pay_at "customers update"' -l last-name -x -d 'family name'
complete -c pay -n '__pay_at "customers update"' -l email -x -d 'e-mail address'
complete -c pay -n '__pay_at "customers update"' -l phone -x -d 'phone in international format, e.g. +14155550123 (spaces, dashes, dots and brackets are dropped)'
complete -c pay -n '__pay_at "customers update"' -l type -x -a 'individual business' -d 'customer type: individual, business, or another value (a near miss such as indivdual is refused)'
complete -c pay -n '__pay_at "customers update"' -l date-of-birth -x -d 'date of birth, a real date not in the future'
complete -c pay -n '__pay_at "customers update"' -l address-line1 -x -d 'street line'
complete -c pay -n '__pay_at "customers update"' -l city -x -d 'city'
complete -c pay -n '__pay_at "customers update"' -l country -x -a 'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW' -d 'country: ISO 3166-1 alpha-2 code (US), alpha-3 (USA) or name (United States); sent as the code'
complete -c pay -n '__pay_at "customers update"' -l postal-code -x -d 'postal code'
complete -c pay -n '__pay_at "kyc verify" "kyc-legacy verify"' -l level -x -a 'basic enhanced' -d 'verification level (default: basic)'
complete -c pay -n '__pay_at "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document"' -l wait -d 'wait for it to be decided: exit 0 when approved, 1 when rejected, at --wait-timeout'
complete -c pay -n '__pay_at "kyc verify" "kyc submit-document" "kyc-legacy verify" "kyc-legacy submit-document" "transfers send" "cards issue" "collections create" "webhooks resend"' -l wait-timeout -x -d 'with --wait: give up after this many seconds (default: 120)'
complete -c pay -n '__pay_at "kyc submit-document" "kyc-legacy submit-document"' -l type -x -a 'passport national_id drivers_license utility_bill selfie' -d 'document type (required)'
complete -c pay -n '__pay_at "kyc submit-document" "kyc-legacy submit-document"' -l country -x -a 'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW' -d 'issuing country, ISO 3166-1 alpha-2 (e.g. GB) (required)'
complete -c pay -n '__pay_at "kyc submit-document" "kyc-legacy submit-document"' -l number -x -d 'document number (only its last 4 characters are kept)'
complete -c pay -n '__pay_at "kyc submit-document" "kyc-legacy submit-document"' -l file-name -x -d 'name of the uploaded file, for your records'
complete -c pay -n '__pay_at "features check" "features activate"' -l feature -x -a 'cards collections crypto_wallets payment_links fx international_transfers' -d 'feature key (required)'
complete -c pay -n '__pay_at "accounts create" "external-accounts add" "wallets create"' -l customer -x -d 'owner (cus_…) (required)'
complete -c pay -n '__pay_at "accounts create"' -l currency -x -d 'ISO 4217 currency, e.g. USD (required)'
complete -c pay -n '__pay_at "accounts create"' -l type -x -a 'checking savings' -d 'checking (default) or savings'
complete -c pay -n '__pay_at "accounts create"' -l nickname -x -d 'a label for people'
complete -c pay -n '__pay_at "accounts list" "external-accounts list"' -l customer -x -d 'only this customer\'s accounts'
complete -c pay -n '__pay_at "accounts list"' -l currency -x -d 'only this currency'
complete -c pay -n '__pay_at "accounts list"' -l status -x -a 'active closed' -d 'only this status'
complete -c pay -n '__pay_at "accounts close" "external-accounts remove" "transfers send" "transfers cancel" "cards terminate" "collections create" "payment-links disable" "fx trade"' -s y -l yes -d 'do not ask for confirmation (needed in live mode without a terminal)'
complete -c pay -n '__pay_at "external-accounts add"' -l account-holder-name -x -d 'name on the bank account (required)'
complete -c pay -n '__pay_at "external-accounts add"' -l bank-name -x -d 'bank name (required)'
complete -c pay -n '__pay_at "external-accounts add"' -l account-number -x -d 'bank account number (required)'
complete -c pay -n '__pay_at "external-accounts add"' -l routing-number -x -d 'routing / sort code, where the country uses one'
complete -c pay -n '__pay_at "external-accounts add"' -l iban -x -d 'IBAN, where the country uses one'
complete -c pay -n '__pay_at "external-accounts add"' -l country -x -a 'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW' -d 'bank country, ISO 3166-1 alpha-2 (required)'
complete -c pay -n '__pay_at "external-accounts add"' -l currency -x -d 'account currency, ISO 4217 (required)'
complete -c pay -n '__pay_at "transfers send"' -l from -x -d 'source account (acc_…) (required)'
complete -c pay -n '__pay_at "transfers send"' -l to -x -d 'destination: an account (acc_…) or an external account (ea_…) (required)'
complete -c pay -n '__pay_at "transfers send"' -l amount -x -d 'amount as a decimal, e.g. 10.50 (required)'
complete -c pay -n '__pay_at "transfers send"' -l currency -x -d 'ISO 4217 currency of the source account (required)'
complete -c pay -n '__pay_at "transfers send"' -l description -x -d 'shown to the sender'
complete -c pay -n '__pay_at "transfers send"' -l reference -x -d 'your reference (e.g. an invoice number)'
complete -c pay -n '__pay_at "transfers send"' -l wait -d 'wait for it to settle: exit 0 when completed, 1 when failed, cancelled, at --wait-timeout'
complete -c pay -n '__pay_at "transfers list"' -l account -x -d 'only transfers from or to this account'
complete -c pay -n '__pay_at "transfers list"' -l status -x -a 'pending completed failed cancelled' -d 'only this status'
complete -c pay -n '__pay_at "cards issue"' -l customer -x -d 'card holder (cus_…) (required)'
complete -c pay -n '__pay_at "cards issue"' -l account -x -d 'account the card spends from (acc_…) (required)'
complete -c pay -n '__pay_at "cards issue"' -l type -x -a 'virtual physical' -d 'virtual or physical (required)'
complete -c pay -n '__pay_at "cards issue"' -l name-on-card -x -d 'name printed on the card'
complete -c pay -n '__pay_at "cards issue"' -l spending-limit -x -d 'spending limit in the account\'s currency, e.g. 500.00'
complete -c pay -n '__pay_at "cards issue"' -l spending-interval -x -a 'daily monthly' -d 'period of the spending limit'
complete -c pay -n '__pay_at "cards issue"' -l address-line1 -x -d 'physical cards: shipping street line'
complete -c pay -n '__pay_at "cards issue"' -l city -x -d 'physical cards: shipping city'
complete -c pay -n '__pay_at "cards issue"' -l country -x -a 'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW' -d 'physical cards: shipping country, ISO 3166-1 alpha-2'
complete -c pay -n '__pay_at "cards issue"' -l postal-code -x -d 'physical cards: shipping postal code'
complete -c pay -n '__pay_at "cards issue"' -l state -x -a '(__pay_states)' -d 'physical cards: ISO 3166-2 subdivision, e.g. US-TX'
complete -c pay -n '__pay_at "cards issue"' -l wait -d 'wait for it to activate: exit 0 when active, 1 when frozen, terminated, at --wait-timeout'
complete -c pay -n '__pay_at "cards list"' -l customer -x -d 'only this customer\'s cards'
complete -c pay -n '__pay_at "cards list"' -l account -x -d 'only cards on this account'
complete -c pay -n '__pay_at "cards list"' -l status -x -a 'inactive active frozen terminated' -d 'only this status'
complete -c pay -n '__pay_at "cards list"' -l type -x -a 'virtual physical' -d 'only this type'
complete -c pay -n '__pay_at "collections create"' -l account -x -d 'account to credit (acc_…) (required)'
complete -c pay -n '__pay_at "collections create"' -l amount -x -d 'amount as a decimal, e.g. 25.00 (required)'
complete -c pay -n '__pay_at "collections create"' -l currency -x -d 'ISO 4217 currency of the account (required)'
complete -c pay -n '__pay_at "collections create"' -l method -x -a 'card bank_transfer mobile_money' -d 'how the payer pays (required)'
complete -c pay -n '__pay_at "collections create"' -l customer -x -d 'the paying customer (cus_…)'
complete -c pay -n '__pay_at "collections create"' -l description -x -d 'what the payment is for'
complete -c pay -n '__pay_at "collections create"' -l mobile-phone -x -d 'mobile money: payer\'s phone, international format'
complete -c pay -n '__pay_at "collections create"' -l mobile-provider -x -a 'mpesa mtn airtel' -d 'mobile money: provider'
complete -c pay -n '__pay_at "collections create"' -l wait -d 'wait for it to settle: exit 0 when succeeded, 1 when failed, at --wait-timeout'
complete -c pay -n '__pay_at "collections list"' -l account -x -d 'only collections into this account'
complete -c pay -n '__pay_at "collections list"' -l status -x -a 'pending succeeded failed' -d 'only this status'
complete -c pay -n '__pay_at "collections list"' -l method -x -a 'card bank_transfer mobile_money' -d 'only this method'
complete -c pay -n '__pay_at "payment-links create"' -l wallet -x -d 'wallet that receives the payment (wal_…) (required)'
complete -c pay -n '__pay_at "payment-links create"' -l amount -x -d 'amount of the asset, e.g. 0.015 (required)'
complete -c pay -n '__pay_at "payment-links create" "wallets create"' -l asset -x -d 'crypto asset (one of BTC, ETH, USDC, USDT) (required)'
complete -c pay -n '__pay_at "payment-links create"' -l description -x -d 'shown to the payer'
complete -c pay -n '__pay_at "payment-links create"' -l expires-at -x -d 'expiry as an RFC 3339 time, e.g. 2030-01-31T12:00:00Z'
complete -c pay -n '__pay_at "payment-links list"' -l wallet -x -d 'only links into this wallet'
complete -c pay -n '__pay_at "payment-links list"' -l status -x -a 'active disabled expired paid' -d 'only this status'
complete -c pay -n '__pay_at "wallets create"' -l network -x -a 'bitcoin ethereum polygon tron' -d 'blockchain network carrying the asset (required)'
complete -c pay -n '__pay_at "wallets create"' -l label -x -d 'a label for people'
complete -c pay -n '__pay_at "wallets list"' -l customer -x -d 'only this customer\'s wallets'
complete -c pay -n '__pay_at "wallets list"' -l asset -x -d 'only this asset (one of BTC, ETH, USDC, USDT)'
complete -c pay -n '__pay_at "fx rates"' -l base -x -d 'base currency (the service defaults to USD)'
complete -c pay -n '__pay_at "fx rates"' -l symbols -x -d 'only these currencies, comma-separated (e.g. EUR,GBP)'
complete -c pay -n '__pay_at "fx quote"' -l from -x -d 'currency you sell (required)'
complete -c pay -n '__pay_at "fx quote"' -l to -x -d 'currency you buy (required)'
complete -c pay -n '__pay_at "fx quote"' -l amount -x -d 'amount to sell, in --from'
complete -c pay -n '__pay_at "fx quote"' -l target-amount -x -d 'amount to buy, in --to'
complete -c pay -n '__pay_at "fx trade"' -l from-account -x -d 'account debited in the sell currency (acc_…) (required)'
complete -c pay -n '__pay_at "fx trade"' -l to-account -x -d 'account credited in the buy currency (acc_…) (required)'
complete -c pay -n '__pay_at "fx trades"' -l account -x -d 'only trades from or to this account'
complete -c pay -n '__pay_at "transactions list"' -l account -x -d 'only this account (acc_…)'
complete -c pay -n '__pay_at "transactions list"' -l wallet -x -d 'only this wallet (wal_…)'
complete -c pay -n '__pay_at "transactions list"' -l from -x -d 'created at or after: YYYY-MM-DD, RFC 3339, or a duration back from now (30m, 2h, 1h30m, 7d, 2w)'
complete -c pay -n '__pay_at "transactions list"' -l to -x -d 'created before (exclusive): YYYY-MM-DD, RFC 3339, or a duration back from now'
complete -c pay -n '__pay_at "transactions list"' -l since -x -d 'the same as --from'
complete -c pay -n '__pay_at "transactions list"' -l until -x -d 'the same as --to'
complete -c pay -n '__pay_at "transactions list"' -l type -x -a 'transfer collection fx_trade reversal' -d 'only this type'
complete -c pay -n '__pay_at "transactions list"' -l status -x -a 'pending posted voided' -d 'only this status'
complete -c pay -n '__pay_at "webhooks list"' -l type -x -a 'customer.created customer.updated kyc.pending kyc.in_review kyc.approved kyc.rejected feature.activated account.created account.closed external_account.created external_account.removed transfer.created transfer.completed transfer.failed transfer.cancelled card.created card.activated card.frozen card.unfrozen card.terminated collection.created collection.succeeded collection.failed payment_link.created payment_link.disabled payment_link.expired wallet.created fx_trade.completed' -d 'only this event type (e.g. transfer.completed)'
complete -c pay -n '__pay_at "webhooks list"' -l status -x -a 'pending delivered failed disabled' -d 'only this delivery status'
complete -c pay -n '__pay_at "webhooks list"' -l object -x -d 'only the events about this object (its data.object.id: a cus_…, tr_…, card_…, …)'
complete -c pay -n '__pay_at "webhooks resend"' -l wait -d 'wait for it to be delivered: exit 0 when delivered, 1 when failed, disabled, at --wait-timeout'
complete -c pay -n '__pay_at "webhooks verify"' -l payload -x -d 'the raw request body: a file, or - (or @-) for standard input (required)'
complete -c pay -n '__pay_at "webhooks verify" "webhooks listen"' -l secret -x -d 'webhook signing secret whsec_… (its base64 without whsec_ works too; default: PAY_WEBHOOK_SECRET, then the profile\'s webhook secret; for listen against the emulator, then the emulator\'s)'
complete -c pay -n '__pay_at "webhooks verify"' -l header -x -d 'a delivery header as "name: value"; repeat for each'
complete -c pay -n '__pay_at "webhooks verify"' -l id -x -d 'value of the webhook-id header'
complete -c pay -n '__pay_at "webhooks verify"' -l timestamp -x -d 'value of the webhook-timestamp header (unix seconds)'
complete -c pay -n '__pay_at "webhooks verify"' -l signature -x -d 'value of the webhook-signature header ("v1,<base64>", space-separated if several)'
complete -c pay -n '__pay_at "webhooks verify" "webhooks listen" "api"' -s o -l output -x -a 'json ndjson' -d 'output format'
complete -c pay -n '__pay_at "webhooks listen"' -l port -x -d 'port to listen on (0: any free port) (default: 8788)'
complete -c pay -n '__pay_at "webhooks listen"' -l host -x -d 'address to bind (default: 127.0.0.1)'
complete -c pay -n '__pay_at "webhooks listen"' -l forward-to -x -d 'also POST each verified delivery here (https://, or http:// to localhost; no user:password@)'
complete -c pay -n '__pay_at "webhooks listen"' -l events -x -d 'only these event types, comma-separated (e.g. customer.created,transfer.failed)'
complete -c pay -n '__pay_at "webhooks listen"' -l skip-duplicates -d 'acknowledge a repeat of an accepted webhook-id without printing or forwarding it'
complete -c pay -n '__pay_at "webhooks listen"' -l print-secret -d 'print the webhook secret deliveries are verified with (a JSON string with --json), and exit'
complete -c pay -n '__pay_at "login"' -l with-key -d 'read the secret key from standard input'
complete -c pay -n '__pay_at "login"' -l public-key -x -d 'public key of the mode (pk_…)'
complete -c pay -n '__pay_at "login"' -l webhook-secret-stdin -d 'read the webhook secret (whsec_…) from standard input (after the key, on the next line, with --with-key)'
complete -c pay -n '__pay_at "login"' -l set-current -d 'make this profile the current one (the first profile always is)'
complete -c pay -n '__pay_at "login"' -l check -d 'with --with-key: check the key against the base URL first (one request; a refusal saves nothing)'
complete -c pay -n '__pay_at "profiles remove"' -s y -l yes -d 'do not ask for confirmation'
complete -c pay -n '__pay_at "api"' -l data -x -d 'request body: JSON, @file or @- for stdin'
complete -c pay -n '__pay_at "api"' -s F -l field -x -d 'a body field (dotted keys nest); on GET, a query parameter'
complete -c pay -n '__pay_at "api"' -l idempotency-key -x -d 'Idempotency-Key to send on POST (default: a fresh UUID)'
complete -c pay -n '__pay_at "api"' -s i -l include -d 'print the status line and response headers to stderr'
complete -c pay -n '__pay_at "api"' -l paginate -d 'GET lists: follow next_cursor and print every item as one JSON array (a single object is printed as it is)'
complete -c pay -n '__pay_at "api"' -s y -l yes -d 'live mode: send a request that moves money or destroys without asking (needed without a terminal)'
complete -c pay -n '__pay_at "openapi"' -l yaml -d 'print YAML instead of JSON (quoted so YAML 1.1 and 1.2 readers agree)'
complete -c pay -n '__pay_at "openapi" "emulator reset" "emulator clock advance" "emulator webhook-url" "doctor"' -s o -l output -x -a 'json' -d 'output format'
complete -c pay -n '__pay_at "emulator start"' -l host -x -d 'address to listen on'
complete -c pay -n '__pay_at "emulator start"' -l port -x -d 'port to listen on; 0 picks a free one'
complete -c pay -n '__pay_at "emulator start"' -l data-dir -x -d 'keep state, keys and webhook URLs in this folder across restarts'
complete -c pay -n '__pay_at "emulator start"' -l set-aside-unknown -d 'with --data-dir: move the files there it cannot account for (which refuse the start, named) into set-aside-<UTC time>/ there, then start; nothing is deleted'
complete -c pay -n '__pay_at "emulator start"' -l webhook-url -x -d 'POST signed Sandbox webhook events to this URL (each mode has its own; Live\'s: pay --live emulator webhook-url); with --data-dir, it replaces the one kept from the last run'
complete -c pay -n '__pay_at "emulator start"' -l configure-profile -x -d 'write a profile pointing at this emulator (keys, tenant, base URL, webhook secrets)'
complete -c pay -n '__pay_at "emulator start" "emulator faults"' -l fail-rate -x -d 'answer this share of requests (0-1) with 500/503, half of them after the write committed'
complete -c pay -n '__pay_at "emulator start" "emulator faults"' -l latency -x -d 'add a random delay in ms to every request, e.g. 50-200'
complete -c pay -n '__pay_at "emulator start" "emulator faults"' -l reset-rate -x -d 'drop the connection without answering for this share of requests (0-1)'
complete -c pay -n '__pay_at "emulator start" "emulator faults"' -l rate-limit -x -d 'allow this many requests per second per key (429 with Retry-After beyond), e.g. 20/s'
complete -c pay -n '__pay_at "emulator start"' -l settle-after -x -d 'pending transfers, collections, KYC reviews and physical cards settle after this long'
complete -c pay -n '__pay_at "emulator start"' -l allow-origin -x -d 'serve requests carrying this Origin header (e.g. http://localhost:3000; repeatable); others are refused'
complete -c pay -n '__pay_at "emulator reset"' -s y -l yes -d 'do not ask for confirmation (needed without a terminal)'
complete -c pay -n '__pay_at "emulator webhook-url"' -l clear -d 'unset the webhook URL (events stay pending until one is set)'
complete -c pay -n '__pay_at "emulator faults"' -l clear -d 'switch every fault off (fail rate, latency, resets, rate limit)'
complete -c pay -n '__pay_at "emulator requests"' -l follow -d 'print new requests as they are answered, until Ctrl-C'
complete -c pay -n '__pay_at "emulator requests"' -l status -x -d 'only these answers: 2xx, 3xx, 4xx, 5xx, or one code such as 404'
complete -c pay -n '__pay_at "emulator requests"' -l path -x -d 'only these paths: a prefix (/v1/customers), or a glob (* within a segment, a ** segment any number of segments); without a leading /, under /v1/'
complete -c pay -n '__pay_at "emulator requests"' -l limit -x -d 'how many of the newest to list (1-1000, default 20; not with --follow)'
complete -c pay -n '__pay_at "trigger"' -l list -d 'list the event types, one line each with what it creates'
complete -c pay -n '__pay_at "trigger"' -l override -x -d 'change a field of an object it creates, e.g. transfer.amount=5.13 or customer.first_name=Grace (repeatable)'
complete -c pay -n '__pay_at "trigger"' -l wait-timeout -x -d 'waiting for settlements and the event: give up after this many seconds (default: 120)'
complete -c pay -n '__pay_at "trigger"' -s y -l yes -d 'live mode: create (and move money) without asking; needed where no terminal can ask'
complete -c pay -n '__pay_at "seed apply" "seed plan"' -l state -x -d 'state file (default: <file>.state.json)'
complete -c pay -n '__pay_at "seed apply"' -l concurrency -x -d 'entries in flight at once (1-64)'
complete -c pay -n '__pay_at "seed apply"' -l replace -d 'create a new object for an entry that cannot be updated in place, and retire the old one where the API allows (transfers, collections and FX trades stay: they are history)'
complete -c pay -n '__pay_at "seed apply"' -l dry-run -d 'send nothing; show what would be created, updated, replaced or skipped'
complete -c pay -n '__pay_at "seed apply"' -s y -l yes -d 'live mode: move money and retire objects without asking (needed where no terminal can ask)'
complete -c pay -n '__pay_at "seed apply" "seed plan"' -l allow-env -x -d 'let ${env.NAME} read this secret-looking variable (repeatable)'

# Global flags: valid at any depth.
complete -c pay -n __pay_at_any -s p -l profile -x -a '(__pay_profiles)' -d 'stored profile to use (env PAY_PROFILE)'
complete -c pay -n __pay_at_any -l live -d 'use the Live key pair (env PAY_MODE=live); Sandbox is the default. Live money moves and destructions ask first (--yes without a terminal)'
complete -c pay -n __pay_at_any -l api-key -x -d 'secret key override (env PAY_API_KEY; visible in ps, prefer the env or a profile)'
complete -c pay -n __pay_at_any -l tenant -x -d 'business id sent as x-tenant-id (env PAY_TENANT_ID)'
complete -c pay -n __pay_at_any -l base-url -x -d 'service address ending in /v1/ (env PAY_BASE_URL)'
complete -c pay -n __pay_at_any -l no-input -d 'never prompt (env PAY_NO_INPUT=1, or CI set)'
complete -c pay -n __pay_at_any -l timeout -x -d 'per-attempt timeout, default 30 (env PAY_TIMEOUT)'
complete -c pay -n __pay_at_any -l max-retries -x -d 'retries on network errors, 429 and 5xx, default 3 (env PAY_MAX_RETRIES)'
complete -c pay -n __pay_at_any -l max-response-bytes -x -d 'refuse an answer larger than this (e.g. 64MiB), default 32MiB (env PAY_MAX_RESPONSE_BYTES)'
complete -c pay -n __pay_at_any -l debug -d 'log requests and responses to stderr, keys redacted (env PAY_DEBUG=1)'
complete -c pay -n __pay_at_any -l no-color -d 'no colours (env NO_COLOR)'
complete -c pay -n __pay_at_any -l no-pager -d 'never page output longer than the terminal (env PAY_PAGER=, empty); the pager is PAY_PAGER, then PAGER, default less -FRX'
complete -c pay -n __pay_at_any -l quiet -d 'no notes on stderr about the data: more exist, columns hidden (env PAY_QUIET=1)'
complete -c pay -n __pay_at_any -l no-names -d 'ids in tables and views without the name beside them, and no requests to look names up (env PAY_NAMES=0)'
complete -c pay -n __pay_at_any -l time -x -d 'times in tables and views: local (TZ, the default), utc or relative (env PAY_TIME); machine formats keep RFC 3339 UTC'

# First positional argument.
complete -c pay -n '__pay_arg0 "profiles show" "profiles use" "profiles remove"' -a '(__pay_profiles)' -d profile
complete -c pay -n '__pay_arg0 "trigger"' -a 'customer.created customer.updated kyc.pending kyc.in_review kyc.approved kyc.rejected feature.activated account.created account.closed external_account.created external_account.removed transfer.created transfer.completed transfer.failed transfer.cancelled card.created card.activated card.frozen card.unfrozen card.terminated collection.created collection.succeeded collection.failed payment_link.created payment_link.disabled payment_link.expired wallet.created fx_trade.completed'
complete -c pay -n '__pay_arg0 "completion"' -a 'bash zsh fish'
